
search-8ff754d235adß
mlp/dense/kernel:0"1,8*2
mlp/dense/kernel/part_0:0
198.18.7.12:CPU:0*
mlp/dense/kernel/part_1:0*&
mlp/dense/kernel/part_2:0	€*2
mlp/dense/kernel/part_3:0
198.18.7.11:CPU:0*#
mlp/dense/kernel/part_4:0*$
mlp/dense/kernel/part_5:0€*#
mlp/dense/kernel/part_6:0*#
mlp/dense/kernel/part_7:0º
mlp/dense/bias:0"16*0
mlp/dense/bias/part_0:0
198.18.7.11:CPU:0*0
mlp/dense/bias/part_1:0
198.18.7.12:CPU:0*0
mlp/dense/bias/part_2:0
198.18.7.11:CPU:0*0
mlp/dense/bias/part_3:0
198.18.7.12:CPU:0*$
mlp/dense/bias/part_4:0	€*
mlp/dense/bias/part_5:0*
mlp/dense/bias/part_6:0*$
mlp/dense/bias/part_7:0	€*$
mlp/dense/bias/part_8:0	€*$
mlp/dense/bias/part_9:0	€*%
mlp/dense/bias/part_10:0	€*1
mlp/dense/bias/part_11:0
198.18.7.11:CPU:0*1
mlp/dense/bias/part_12:0
198.18.7.11:CPU:0* 
mlp/dense/bias/part_13:0*3
mlp/dense/bias/part_14:0
198.18.7.12:CPU:0* 
mlp/dense/bias/part_15:0
mlp/dense_1/kernel:0ó
mlp/dense_1/bias:0"16*2
mlp/dense_1/bias/part_0:0
198.18.7.13:CPU:0*!
mlp/dense_1/bias/part_1:0*!
mlp/dense_1/bias/part_2:0*2
mlp/dense_1/bias/part_3:0
198.18.7.13:CPU:0*2
mlp/dense_1/bias/part_4:0
198.18.7.12:CPU:0*4
mlp/dense_1/bias/part_5:0
198.18.7.12:CPU:0*"
mlp/dense_1/bias/part_6:0€*4
mlp/dense_1/bias/part_7:0
198.18.7.13:CPU:0*2
mlp/dense_1/bias/part_8:0
198.18.7.12:CPU:0*"
mlp/dense_1/bias/part_9:0€*"
mlp/dense_1/bias/part_10:0*5
mlp/dense_1/bias/part_11:0
198.18.7.12:CPU:0*5
mlp/dense_1/bias/part_12:0
198.18.7.13:CPU:0*"
mlp/dense_1/bias/part_13:0*5
mlp/dense_1/bias/part_14:0
198.18.7.13:CPU:0*"
mlp/dense_1/bias/part_15:0t
mlp/dense_2/kernel:0"1,2*4
mlp/dense_2/kernel/part_0:0
198.18.7.11:CPU:0*!
mlp/dense_2/kernel/part_1:0¦
mlp/dense_2/bias:0"3*4
mlp/dense_2/bias/part_0:0
198.18.7.13:CPU:0*4
mlp/dense_2/bias/part_1:0
198.18.7.12:CPU:0*!
mlp/dense_2/bias/part_2:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search