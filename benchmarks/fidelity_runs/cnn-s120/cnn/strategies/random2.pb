
search-8ba7ca837945
cnn/conv2d/kernel:0€8
cnn/batch_normalization/gamma:0
198.18.7.11:CPU:0”
cnn/batch_normalization/beta:0"2*>
%cnn/batch_normalization/beta/part_0:0
198.18.7.12:CPU:0*/
%cnn/batch_normalization/beta/part_1:0«
cnn/conv2d_1/kernel:0"3,1,1,1*'
cnn/conv2d_1/kernel/part_0:0€*7
cnn/conv2d_1/kernel/part_1:0
198.18.7.12:CPU:0*'
cnn/conv2d_1/kernel/part_2:0€Ÿ
!cnn/batch_normalization_1/gamma:0"2*2
(cnn/batch_normalization_1/gamma/part_0:0*C
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.13:CPU:0Œ
 cnn/batch_normalization_1/beta:0"16*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization_1/beta/part_2:0
198.18.7.12:CPU:0*1
'cnn/batch_normalization_1/beta/part_3:0*@
'cnn/batch_normalization_1/beta/part_4:0
198.18.7.13:CPU:0*B
'cnn/batch_normalization_1/beta/part_5:0
198.18.7.11:CPU:0*@
'cnn/batch_normalization_1/beta/part_6:0
198.18.7.12:CPU:0*1
'cnn/batch_normalization_1/beta/part_7:0*@
'cnn/batch_normalization_1/beta/part_8:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization_1/beta/part_9:0
198.18.7.13:CPU:0*C
(cnn/batch_normalization_1/beta/part_10:0
198.18.7.12:CPU:0*C
(cnn/batch_normalization_1/beta/part_11:0
198.18.7.12:CPU:0*5
(cnn/batch_normalization_1/beta/part_12:0	€*A
(cnn/batch_normalization_1/beta/part_13:0
198.18.7.11:CPU:0*2
(cnn/batch_normalization_1/beta/part_14:0*.
(cnn/batch_normalization_1/beta/part_15:0
cnn/dense/kernel:0¯
cnn/dense/bias:0"3*0
cnn/dense/bias/part_0:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_1:0
198.18.7.13:CPU:0*2
cnn/dense/bias/part_2:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search