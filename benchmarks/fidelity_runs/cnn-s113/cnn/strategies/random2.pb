
search-7c832e9a186by
cnn/conv2d/kernel:0"2,1,1,1*5
cnn/conv2d/kernel/part_0:0
198.18.7.13:CPU:0*"
cnn/conv2d/kernel/part_1:0Ì
cnn/batch_normalization/gamma:0"8*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_1:0
198.18.7.11:CPU:0*,
&cnn/batch_normalization/gamma/part_2:0*A
&cnn/batch_normalization/gamma/part_3:0
198.18.7.11:CPU:0*,
&cnn/batch_normalization/gamma/part_4:0*0
&cnn/batch_normalization/gamma/part_5:0*1
&cnn/batch_normalization/gamma/part_6:0Ä*?
&cnn/batch_normalization/gamma/part_7:0
198.18.7.11:CPU:0µ
cnn/batch_normalization/beta:0"3*-
%cnn/batch_normalization/beta/part_0:0*2
%cnn/batch_normalization/beta/part_1:0	Ä*-
%cnn/batch_normalization/beta/part_2:0·
cnn/conv2d_1/kernel:0"1,1,1,4*5
cnn/conv2d_1/kernel/part_0:0
198.18.7.11:CPU:0*)
cnn/conv2d_1/kernel/part_1:0	Ä*7
cnn/conv2d_1/kernel/part_2:0
198.18.7.11:CPU:0*$
cnn/conv2d_1/kernel/part_3:0ù
!cnn/batch_normalization_1/gamma:0"2*2
(cnn/batch_normalization_1/gamma/part_0:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.13:CPU:0ö
 cnn/batch_normalization_1/beta:0"2*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.13:CPU:0*/
'cnn/batch_normalization_1/beta/part_1:0n
cnn/dense/kernel:0"2,1*2
cnn/dense/kernel/part_0:0
198.18.7.13:CPU:0*
cnn/dense/kernel/part_1:0≈
cnn/dense/bias:0"8*!
cnn/dense/bias/part_0:0*
cnn/dense/bias/part_1:0*!
cnn/dense/bias/part_2:0*0
cnn/dense/bias/part_3:0
198.18.7.12:CPU:0*
cnn/dense/bias/part_4:0*2
cnn/dense/bias/part_5:0
198.18.7.12:CPU:0*
cnn/dense/bias/part_6:0*
cnn/dense/bias/part_7:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search