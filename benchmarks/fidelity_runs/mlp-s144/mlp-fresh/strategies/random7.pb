
search-df912983eb1a
mlp/dense/kernel:0	€¯
mlp/dense/bias:0"4*$
mlp/dense/bias/part_0:0	€*
mlp/dense/bias/part_1:0*
mlp/dense/bias/part_2:0*0
mlp/dense/bias/part_3:0
198.18.7.11:CPU:0Ô
mlp/dense_1/kernel:0"16,1*(
mlp/dense_1/kernel/part_0:0	€*4
mlp/dense_1/kernel/part_1:0
198.18.7.13:CPU:0*4
mlp/dense_1/kernel/part_2:0
198.18.7.13:CPU:0*4
mlp/dense_1/kernel/part_3:0
198.18.7.11:CPU:0*6
mlp/dense_1/kernel/part_4:0
198.18.7.11:CPU:0*6
mlp/dense_1/kernel/part_5:0
198.18.7.11:CPU:0*(
mlp/dense_1/kernel/part_6:0	€*6
mlp/dense_1/kernel/part_7:0
198.18.7.12:CPU:0*4
mlp/dense_1/kernel/part_8:0
198.18.7.11:CPU:0*#
mlp/dense_1/kernel/part_9:0*5
mlp/dense_1/kernel/part_10:0
198.18.7.11:CPU:0*5
mlp/dense_1/kernel/part_11:0
198.18.7.12:CPU:0*7
mlp/dense_1/kernel/part_12:0
198.18.7.13:CPU:0*&
mlp/dense_1/kernel/part_13:0*7
mlp/dense_1/kernel/part_14:0
198.18.7.11:CPU:0*5
mlp/dense_1/kernel/part_15:0
198.18.7.13:CPU:0
mlp/dense_1/bias:0"16*4
mlp/dense_1/bias/part_0:0
198.18.7.13:CPU:0*4
mlp/dense_1/bias/part_1:0
198.18.7.11:CPU:0*4
mlp/dense_1/bias/part_2:0
198.18.7.11:CPU:0*2
mlp/dense_1/bias/part_3:0
198.18.7.11:CPU:0*4
mlp/dense_1/bias/part_4:0
198.18.7.11:CPU:0*&
mlp/dense_1/bias/part_5:0	€*#
mlp/dense_1/bias/part_6:0*!
mlp/dense_1/bias/part_7:0*!
mlp/dense_1/bias/part_8:0*#
mlp/dense_1/bias/part_9:0*"
mlp/dense_1/bias/part_10:0*3
mlp/dense_1/bias/part_11:0
198.18.7.13:CPU:0*5
mlp/dense_1/bias/part_12:0
198.18.7.11:CPU:0*5
mlp/dense_1/bias/part_13:0
198.18.7.13:CPU:0*'
mlp/dense_1/bias/part_14:0	€*3
mlp/dense_1/bias/part_15:0
198.18.7.13:CPU:0/
mlp/dense_2/kernel:0
198.18.7.13:CPU:0u
mlp/dense_2/bias:0"2*4
mlp/dense_2/bias/part_0:0
198.18.7.12:CPU:0*&
mlp/dense_2/bias/part_1:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search