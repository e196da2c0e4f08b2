
search-57273af2921aŸ
cnn/conv2d/kernel:0"3,1,1,1*$
cnn/conv2d/kernel/part_0:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.13:CPU:0*"
cnn/conv2d/kernel/part_2:0•
cnn/batch_normalization/gamma:0"8*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.12:CPU:0*3
&cnn/batch_normalization/gamma/part_1:0	€*?
&cnn/batch_normalization/gamma/part_2:0
198.18.7.13:CPU:0*A
&cnn/batch_normalization/gamma/part_3:0
198.18.7.13:CPU:0*A
&cnn/batch_normalization/gamma/part_4:0
198.18.7.12:CPU:0*.
&cnn/batch_normalization/gamma/part_5:0*?
&cnn/batch_normalization/gamma/part_6:0
198.18.7.12:CPU:0*A
&cnn/batch_normalization/gamma/part_7:0
198.18.7.12:CPU:09
cnn/batch_normalization/beta:0
198.18.7.11:CPU:0ª
cnn/conv2d_1/kernel:0"3,1,1,1*7
cnn/conv2d_1/kernel/part_0:0
198.18.7.12:CPU:0*)
cnn/conv2d_1/kernel/part_1:0	€*$
cnn/conv2d_1/kernel/part_2:0Ï
!cnn/batch_normalization_1/gamma:0"3*2
(cnn/batch_normalization_1/gamma/part_0:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.11:CPU:0*0
(cnn/batch_normalization_1/gamma/part_2:09
 cnn/batch_normalization_1/beta:0
198.18.7.13:CPU:0Ì
cnn/dense/kernel:0"4,1*!
cnn/dense/kernel/part_0:0*4
cnn/dense/kernel/part_1:0
198.18.7.11:CPU:0*$
cnn/dense/kernel/part_2:0€*2
cnn/dense/kernel/part_3:0
198.18.7.13:CPU:0Ê
cnn/dense/bias:0"4*0
cnn/dense/bias/part_0:0
198.18.7.11:CPU:0*0
cnn/dense/bias/part_1:0
198.18.7.13:CPU:0*
cnn/dense/bias/part_2:0*0
cnn/dense/bias/part_3:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search