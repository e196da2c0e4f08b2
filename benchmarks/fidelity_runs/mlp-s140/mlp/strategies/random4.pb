
search-f7ea977bb9dfr
mlp/dense/kernel:0"1,2*!
mlp/dense/kernel/part_0:0*4
mlp/dense/kernel/part_1:0
198.18.7.13:CPU:0+
mlp/dense/bias:0
198.18.7.12:CPU:0-
mlp/dense_1/kernel:0
198.18.7.13:CPU:0
mlp/dense_1/bias:0	€Ä
mlp/dense_2/kernel:0"4,1*&
mlp/dense_2/kernel/part_0:0€*!
mlp/dense_2/kernel/part_1:0*4
mlp/dense_2/kernel/part_2:0
198.18.7.11:CPU:0*&
mlp/dense_2/kernel/part_3:0€p
mlp/dense_2/bias:0"2*4
mlp/dense_2/bias/part_0:0
198.18.7.11:CPU:0*!
mlp/dense_2/bias/part_1:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search