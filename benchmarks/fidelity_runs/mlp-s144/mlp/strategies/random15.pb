
search-f8f7dee3ed83§
mlp/dense/kernel:0"1,3*$
mlp/dense/kernel/part_0:0€*2
mlp/dense/kernel/part_1:0
198.18.7.13:CPU:0*2
mlp/dense/kernel/part_2:0
198.18.7.13:CPU:0
mlp/dense/bias:0€İ
mlp/dense_1/kernel:0"8,1*%
mlp/dense_1/kernel/part_0:0*#
mlp/dense_1/kernel/part_1:0*#
mlp/dense_1/kernel/part_2:0*4
mlp/dense_1/kernel/part_3:0
198.18.7.11:CPU:0*%
mlp/dense_1/kernel/part_4:0*%
mlp/dense_1/kernel/part_5:0*&
mlp/dense_1/kernel/part_6:0€*#
mlp/dense_1/kernel/part_7:0
mlp/dense_1/bias:0
mlp/dense_2/kernel:0Ì
mlp/dense_2/bias:0"4*#
mlp/dense_2/bias/part_0:0*$
mlp/dense_2/bias/part_1:0€*2
mlp/dense_2/bias/part_2:0
198.18.7.12:CPU:0*4
mlp/dense_2/bias/part_3:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search