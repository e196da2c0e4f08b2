
search-2e3c7131cabcõ
cnn/conv2d/kernel:0"1,1,1,3*"
cnn/conv2d/kernel/part_0:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.12:CPU:0* 
cnn/conv2d/kernel/part_2:0:
cnn/batch_normalization/gamma:0
198.18.7.13:CPU:0í
cnn/batch_normalization/beta:0"2*-
%cnn/batch_normalization/beta/part_0:0*>
%cnn/batch_normalization/beta/part_1:0
198.18.7.12:CPU:0Å
cnn/conv2d_1/kernel:0"1,1,1,16*"
cnn/conv2d_1/kernel/part_0:0*$
cnn/conv2d_1/kernel/part_1:0*5
cnn/conv2d_1/kernel/part_2:0
198.18.7.11:CPU:0*"
cnn/conv2d_1/kernel/part_3:0*"
cnn/conv2d_1/kernel/part_4:0*%
cnn/conv2d_1/kernel/part_5:0Ä*5
cnn/conv2d_1/kernel/part_6:0
198.18.7.13:CPU:0*$
cnn/conv2d_1/kernel/part_7:0*7
cnn/conv2d_1/kernel/part_8:0
198.18.7.11:CPU:0*5
cnn/conv2d_1/kernel/part_9:0
198.18.7.12:CPU:0*'
cnn/conv2d_1/kernel/part_10:0*8
cnn/conv2d_1/kernel/part_11:0
198.18.7.13:CPU:0*%
cnn/conv2d_1/kernel/part_12:0*'
cnn/conv2d_1/kernel/part_13:0*6
cnn/conv2d_1/kernel/part_14:0
198.18.7.12:CPU:0*6
cnn/conv2d_1/kernel/part_15:0
198.18.7.11:CPU:0)
!cnn/batch_normalization_1/gamma:0†
 cnn/batch_normalization_1/beta:0"4*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0*@
'cnn/batch_normalization_1/beta/part_2:0
198.18.7.12:CPU:0*/
'cnn/batch_normalization_1/beta/part_3:0r
cnn/dense/kernel:0"2,1*2
cnn/dense/kernel/part_0:0
198.18.7.13:CPU:0*#
cnn/dense/kernel/part_1:0|
cnn/dense/bias:0"3*
cnn/dense/bias/part_0:0*!
cnn/dense/bias/part_1:0*!
cnn/dense/bias/part_2:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search