
search-47c918e0614eû
cnn/conv2d/kernel:0"1,1,1,8*$
cnn/conv2d/kernel/part_0:0*'
cnn/conv2d/kernel/part_1:0	Ä*5
cnn/conv2d/kernel/part_2:0
198.18.7.12:CPU:0*"
cnn/conv2d/kernel/part_3:0*3
cnn/conv2d/kernel/part_4:0
198.18.7.11:CPU:0*3
cnn/conv2d/kernel/part_5:0
198.18.7.13:CPU:0*3
cnn/conv2d/kernel/part_6:0
198.18.7.13:CPU:0*5
cnn/conv2d/kernel/part_7:0
198.18.7.12:CPU:0ì
cnn/batch_normalization/gamma:0"2*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.12:CPU:0*,
&cnn/batch_normalization/gamma/part_1:0∆
cnn/batch_normalization/beta:0"3*>
%cnn/batch_normalization/beta/part_0:0
198.18.7.12:CPU:0*-
%cnn/batch_normalization/beta/part_1:0*2
%cnn/batch_normalization/beta/part_2:0	Ä÷
cnn/conv2d_1/kernel:0"1,1,1,4*5
cnn/conv2d_1/kernel/part_0:0
198.18.7.12:CPU:0*"
cnn/conv2d_1/kernel/part_1:0*5
cnn/conv2d_1/kernel/part_2:0
198.18.7.12:CPU:0*"
cnn/conv2d_1/kernel/part_3:0‡
!cnn/batch_normalization_1/gamma:0"3*0
(cnn/batch_normalization_1/gamma/part_0:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.13:CPU:0*C
(cnn/batch_normalization_1/gamma/part_2:0
198.18.7.12:CPU:0ú
 cnn/batch_normalization_1/beta:0"2*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.13:CPU:0*1
'cnn/batch_normalization_1/beta/part_1:0ª
cnn/dense/kernel:0"1,3*4
cnn/dense/kernel/part_0:0
198.18.7.12:CPU:0*4
cnn/dense/kernel/part_1:0
198.18.7.13:CPU:0*4
cnn/dense/kernel/part_2:0
198.18.7.13:CPU:0Å
cnn/dense/bias:0"3*!
cnn/dense/bias/part_0:0*$
cnn/dense/bias/part_1:0	Ä*!
cnn/dense/bias/part_2:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search