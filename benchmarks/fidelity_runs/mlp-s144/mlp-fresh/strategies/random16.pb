
search-34b6007e83d4-
mlp/dense/kernel:0
198.18.7.11:CPU:0Ä
mlp/dense/bias:0"4*$
mlp/dense/bias/part_0:0	€*
mlp/dense/bias/part_1:0*2
mlp/dense/bias/part_2:0
198.18.7.11:CPU:0*2
mlp/dense/bias/part_3:0
198.18.7.13:CPU:0!
mlp/dense_1/kernel:0	€Ú
mlp/dense_1/bias:0"4*2
mlp/dense_1/bias/part_0:0
198.18.7.13:CPU:0*!
mlp/dense_1/bias/part_1:0*4
mlp/dense_1/bias/part_2:0
198.18.7.13:CPU:0*4
mlp/dense_1/bias/part_3:0
198.18.7.11:CPU:0ß
mlp/dense_2/kernel:0"1,8*(
mlp/dense_2/kernel/part_0:0	€*#
mlp/dense_2/kernel/part_1:0*6
mlp/dense_2/kernel/part_2:0
198.18.7.13:CPU:0*!
mlp/dense_2/kernel/part_3:0*#
mlp/dense_2/kernel/part_4:0*&
mlp/dense_2/kernel/part_5:0€*(
mlp/dense_2/kernel/part_6:0	€*!
mlp/dense_2/kernel/part_7:0µ
mlp/dense_2/bias:0"10*$
mlp/dense_2/bias/part_0:0€*!
mlp/dense_2/bias/part_1:0*2
mlp/dense_2/bias/part_2:0
198.18.7.12:CPU:0*$
mlp/dense_2/bias/part_3:0€*!
mlp/dense_2/bias/part_4:0*!
mlp/dense_2/bias/part_5:0*#
mlp/dense_2/bias/part_6:0*4
mlp/dense_2/bias/part_7:0
198.18.7.12:CPU:0*#
mlp/dense_2/bias/part_8:0*2
mlp/dense_2/bias/part_9:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search