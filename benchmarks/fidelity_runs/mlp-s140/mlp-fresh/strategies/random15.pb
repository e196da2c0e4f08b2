
search-fbf94be4567e©
mlp/dense/kernel:0"1,4*!
mlp/dense/kernel/part_0:0*!
mlp/dense/kernel/part_1:0*#
mlp/dense/kernel/part_2:0*#
mlp/dense/kernel/part_3:0
mlp/dense/bias:0"8*0
mlp/dense/bias/part_0:0
198.18.7.13:CPU:0*!
mlp/dense/bias/part_1:0*2
mlp/dense/bias/part_2:0
198.18.7.12:CPU:0*2
mlp/dense/bias/part_3:0
198.18.7.12:CPU:0*2
mlp/dense/bias/part_4:0
198.18.7.11:CPU:0*
mlp/dense/bias/part_5:0*2
mlp/dense/bias/part_6:0
198.18.7.11:CPU:0*2
mlp/dense/bias/part_7:0
198.18.7.12:CPU:0Ø
mlp/dense_1/kernel:0"4,1*%
mlp/dense_1/kernel/part_0:0*4
mlp/dense_1/kernel/part_1:0
198.18.7.12:CPU:0*(
mlp/dense_1/kernel/part_2:0	€*4
mlp/dense_1/kernel/part_3:0
198.18.7.12:CPU:0â
mlp/dense_1/bias:0"16*2
mlp/dense_1/bias/part_0:0
198.18.7.11:CPU:0*#
mlp/dense_1/bias/part_1:0*4
mlp/dense_1/bias/part_2:0
198.18.7.12:CPU:0*!
mlp/dense_1/bias/part_3:0*#
mlp/dense_1/bias/part_4:0*4
mlp/dense_1/bias/part_5:0
198.18.7.13:CPU:0*&
mlp/dense_1/bias/part_6:0	€*!
mlp/dense_1/bias/part_7:0*4
mlp/dense_1/bias/part_8:0
198.18.7.13:CPU:0*&
mlp/dense_1/bias/part_9:0	€*5
mlp/dense_1/bias/part_10:0
198.18.7.12:CPU:0*'
mlp/dense_1/bias/part_11:0	€*3
mlp/dense_1/bias/part_12:0
198.18.7.13:CPU:0*"
mlp/dense_1/bias/part_13:0*"
mlp/dense_1/bias/part_14:0*5
mlp/dense_1/bias/part_15:0
198.18.7.12:CPU:0
mlp/dense_2/kernel:0î
mlp/dense_2/bias:0"8*!
mlp/dense_2/bias/part_0:0*&
mlp/dense_2/bias/part_1:0	€*4
mlp/dense_2/bias/part_2:0
198.18.7.13:CPU:0*!
mlp/dense_2/bias/part_3:0*4
mlp/dense_2/bias/part_4:0
198.18.7.13:CPU:0*
mlp/dense_2/bias/part_5:0*2
mlp/dense_2/bias/part_6:0
198.18.7.12:CPU:0*&
mlp/dense_2/bias/part_7:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search