
search-86cf4cfcb4e0Î
mlp/dense/kernel:0"1,4*2
mlp/dense/kernel/part_0:0
198.18.7.12:CPU:0*!
mlp/dense/kernel/part_1:0*4
mlp/dense/kernel/part_2:0
198.18.7.11:CPU:0*&
mlp/dense/kernel/part_3:0	€)
mlp/dense/bias:0
198.18.7.12:CPU:0¿
mlp/dense_1/kernel:0"1,3*6
mlp/dense_1/kernel/part_0:0
198.18.7.12:CPU:0*4
mlp/dense_1/kernel/part_1:0
198.18.7.13:CPU:0*4
mlp/dense_1/kernel/part_2:0
198.18.7.13:CPU:0b
mlp/dense_1/bias:0"2*!
mlp/dense_1/bias/part_0:0*&
mlp/dense_1/bias/part_1:0	€‹
mlp/dense_2/kernel:0"2,1*6
mlp/dense_2/kernel/part_0:0
198.18.7.12:CPU:0*6
mlp/dense_2/kernel/part_1:0
198.18.7.13:CPU:0“
mlp/dense_2/bias:0"3*2
mlp/dense_2/bias/part_0:0
198.18.7.11:CPU:0*!
mlp/dense_2/bias/part_1:0*#
mlp/dense_2/bias/part_2:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search