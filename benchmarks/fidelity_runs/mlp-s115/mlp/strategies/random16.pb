
search-ad3e40f7ce25
mlp/dense/kernel:0	€)
mlp/dense/bias:0
198.18.7.13:CPU:0z
mlp/dense_1/kernel:0"1,2*6
mlp/dense_1/kernel/part_0:0
198.18.7.11:CPU:0*%
mlp/dense_1/kernel/part_1:0ƒ
mlp/dense_1/bias:0"3*
mlp/dense_1/bias/part_0:0*&
mlp/dense_1/bias/part_1:0	€*!
mlp/dense_1/bias/part_2:0/
mlp/dense_2/kernel:0
198.18.7.12:CPU:0g
mlp/dense_2/bias:0"2*&
mlp/dense_2/bias/part_0:0	€*&
mlp/dense_2/bias/part_1:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search