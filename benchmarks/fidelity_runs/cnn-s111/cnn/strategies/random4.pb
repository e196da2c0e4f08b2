
search-2db6ac351e08ä
cnn/conv2d/kernel:0"1,2,1,1*5
cnn/conv2d/kernel/part_0:0
198.18.7.13:CPU:0*3
cnn/conv2d/kernel/part_1:0
198.18.7.13:CPU:0«
cnn/batch_normalization/gamma:0"3*.
&cnn/batch_normalization/gamma/part_0:0*?
&cnn/batch_normalization/gamma/part_1:0
198.18.7.12:CPU:0*0
&cnn/batch_normalization/gamma/part_2:07
cnn/batch_normalization/beta:0
198.18.7.12:CPU:0}
cnn/conv2d_1/kernel:0"1,2,1,1*5
cnn/conv2d_1/kernel/part_0:0
198.18.7.11:CPU:0*$
cnn/conv2d_1/kernel/part_1:0+
!cnn/batch_normalization_1/gamma:0ù
 cnn/batch_normalization_1/beta:0"2*@
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.11:CPU:0*4
'cnn/batch_normalization_1/beta/part_1:0	Ä∏
cnn/dense/kernel:0"4,1*!
cnn/dense/kernel/part_0:0*!
cnn/dense/kernel/part_1:0*2
cnn/dense/kernel/part_2:0
198.18.7.12:CPU:0*#
cnn/dense/kernel/part_3:0
cnn/dense/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search