
search-d508a3aea4c1™
cnn/conv2d/kernel:0"1,1,1,8*3
cnn/conv2d/kernel/part_0:0
198.18.7.13:CPU:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.12:CPU:0*3
cnn/conv2d/kernel/part_2:0
198.18.7.12:CPU:0*5
cnn/conv2d/kernel/part_3:0
198.18.7.12:CPU:0*3
cnn/conv2d/kernel/part_4:0
198.18.7.11:CPU:0*"
cnn/conv2d/kernel/part_5:0*"
cnn/conv2d/kernel/part_6:0*$
cnn/conv2d/kernel/part_7:0†
cnn/batch_normalization/gamma:0"2*0
&cnn/batch_normalization/gamma/part_0:0*.
&cnn/batch_normalization/gamma/part_1:07
cnn/batch_normalization/beta:0
198.18.7.12:CPU:0É
cnn/conv2d_1/kernel:0"1,1,4,1*7
cnn/conv2d_1/kernel/part_0:0
198.18.7.13:CPU:0*$
cnn/conv2d_1/kernel/part_1:0*"
cnn/conv2d_1/kernel/part_2:0*$
cnn/conv2d_1/kernel/part_3:0å
!cnn/batch_normalization_1/gamma:0"3*C
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.13:CPU:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.12:CPU:0*5
(cnn/batch_normalization_1/gamma/part_2:0	€±
 cnn/batch_normalization_1/beta:0"4*@
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.12:CPU:0*B
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0*B
'cnn/batch_normalization_1/beta/part_2:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_3:0
198.18.7.11:CPU:0è
cnn/dense/kernel:0"1,10*!
cnn/dense/kernel/part_0:0*#
cnn/dense/kernel/part_1:0*4
cnn/dense/kernel/part_2:0
198.18.7.11:CPU:0*4
cnn/dense/kernel/part_3:0
198.18.7.12:CPU:0*2
cnn/dense/kernel/part_4:0
198.18.7.11:CPU:0*4
cnn/dense/kernel/part_5:0
198.18.7.11:CPU:0*!
cnn/dense/kernel/part_6:0*2
cnn/dense/kernel/part_7:0
198.18.7.13:CPU:0*4
cnn/dense/kernel/part_8:0
198.18.7.12:CPU:0*!
cnn/dense/kernel/part_9:0À
cnn/dense/bias:0"4*0
cnn/dense/bias/part_0:0
198.18.7.12:CPU:0*0
cnn/dense/bias/part_1:0
198.18.7.11:CPU:0*$
cnn/dense/bias/part_2:0	€*
cnn/dense/bias/part_3:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search