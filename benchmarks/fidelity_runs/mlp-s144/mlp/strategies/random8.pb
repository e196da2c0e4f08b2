
search-f2284e6849b7]
mlp/dense/kernel:0"1,2*
mlp/dense/kernel/part_0:0*!
mlp/dense/kernel/part_1:0À
mlp/dense/bias:0"4*2
mlp/dense/bias/part_0:0
198.18.7.13:CPU:0*$
mlp/dense/bias/part_1:0	€*0
mlp/dense/bias/part_2:0
198.18.7.12:CPU:0*
mlp/dense/bias/part_3:0¬
mlp/dense_1/kernel:0"3,1*4
mlp/dense_1/kernel/part_0:0
198.18.7.13:CPU:0*4
mlp/dense_1/kernel/part_1:0
198.18.7.13:CPU:0*#
mlp/dense_1/kernel/part_2:0¨
mlp/dense_1/bias:0"4*!
mlp/dense_1/bias/part_0:0*&
mlp/dense_1/bias/part_1:0	€*#
mlp/dense_1/bias/part_2:0*
mlp/dense_1/bias/part_3:0‰
mlp/dense_2/kernel:0"1,2*4
mlp/dense_2/kernel/part_0:0
198.18.7.12:CPU:0*6
mlp/dense_2/kernel/part_1:0
198.18.7.12:CPU:0î
mlp/dense_2/bias:0"10*4
mlp/dense_2/bias/part_0:0
198.18.7.11:CPU:0*2
mlp/dense_2/bias/part_1:0
198.18.7.13:CPU:0*4
mlp/dense_2/bias/part_2:0
198.18.7.11:CPU:0*&
mlp/dense_2/bias/part_3:0	€*2
mlp/dense_2/bias/part_4:0
198.18.7.12:CPU:0*2
mlp/dense_2/bias/part_5:0
198.18.7.11:CPU:0*#
mlp/dense_2/bias/part_6:0*4
mlp/dense_2/bias/part_7:0
198.18.7.13:CPU:0*&
mlp/dense_2/bias/part_8:0	€*!
mlp/dense_2/bias/part_9:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search