
search-f87446750d40ò
mlp/dense/kernel:0"1,8*2
mlp/dense/kernel/part_0:0
198.18.7.13:CPU:0*2
mlp/dense/kernel/part_1:0
198.18.7.13:CPU:0*&
mlp/dense/kernel/part_2:0	€*!
mlp/dense/kernel/part_3:0*#
mlp/dense/kernel/part_4:0*2
mlp/dense/kernel/part_5:0
198.18.7.12:CPU:0*#
mlp/dense/kernel/part_6:0*&
mlp/dense/kernel/part_7:0	€j
mlp/dense/bias:0"2*2
mlp/dense/bias/part_0:0
198.18.7.13:CPU:0*
mlp/dense/bias/part_1:0°
mlp/dense_1/kernel:0"1,3*6
mlp/dense_1/kernel/part_0:0
198.18.7.11:CPU:0*#
mlp/dense_1/kernel/part_1:0*6
mlp/dense_1/kernel/part_2:0
198.18.7.12:CPU:0…
mlp/dense_1/bias:0"3*$
mlp/dense_1/bias/part_0:0€*#
mlp/dense_1/bias/part_1:0*!
mlp/dense_1/bias/part_2:0z
mlp/dense_2/kernel:0"2,1*%
mlp/dense_2/kernel/part_0:0*6
mlp/dense_2/kernel/part_1:0
198.18.7.13:CPU:0+
mlp/dense_2/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search