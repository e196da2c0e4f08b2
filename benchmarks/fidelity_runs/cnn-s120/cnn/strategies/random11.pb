
search-6497bb52d3ab
cnn/conv2d/kernel:0—
cnn/batch_normalization/gamma:0"2*.
&cnn/batch_normalization/gamma/part_0:0*A
&cnn/batch_normalization/gamma/part_1:0
198.18.7.12:CPU:0Ö
cnn/batch_normalization/beta:0"3*-
%cnn/batch_normalization/beta/part_0:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.11:CPU:0*@
%cnn/batch_normalization/beta/part_2:0
198.18.7.12:CPU:0ù
cnn/conv2d_1/kernel:0"1,1,1,8*'
cnn/conv2d_1/kernel/part_0:0€*"
cnn/conv2d_1/kernel/part_1:0*"
cnn/conv2d_1/kernel/part_2:0*7
cnn/conv2d_1/kernel/part_3:0
198.18.7.12:CPU:0*&
cnn/conv2d_1/kernel/part_4:0*&
cnn/conv2d_1/kernel/part_5:0*5
cnn/conv2d_1/kernel/part_6:0
198.18.7.11:CPU:0*&
cnn/conv2d_1/kernel/part_7:0)
!cnn/batch_normalization_1/gamma:0+
 cnn/batch_normalization_1/beta:0€¨
cnn/dense/kernel:0"1,3*4
cnn/dense/kernel/part_0:0
198.18.7.11:CPU:0*#
cnn/dense/kernel/part_1:0*2
cnn/dense/kernel/part_2:0
198.18.7.12:CPU:0Ð
cnn/dense/bias:0"4*0
cnn/dense/bias/part_0:0
198.18.7.13:CPU:0*2
cnn/dense/bias/part_1:0
198.18.7.11:CPU:0*
cnn/dense/bias/part_2:0*2
cnn/dense/bias/part_3:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search