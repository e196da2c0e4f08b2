
search-ab4fbbf5fa1fÖ
cnn/conv2d/kernel:0"1,1,1,4*5
cnn/conv2d/kernel/part_0:0
198.18.7.11:CPU:0*$
cnn/conv2d/kernel/part_1:0*3
cnn/conv2d/kernel/part_2:0
198.18.7.11:CPU:0*$
cnn/conv2d/kernel/part_3:0)
cnn/batch_normalization/gamma:0ˆ
cnn/batch_normalization/beta:0"4*-
%cnn/batch_normalization/beta/part_0:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.12:CPU:0*@
%cnn/batch_normalization/beta/part_2:0
198.18.7.12:CPU:0*0
%cnn/batch_normalization/beta/part_3:0€v
cnn/conv2d_1/kernel:0"1,1,1,2*)
cnn/conv2d_1/kernel/part_0:0	€*)
cnn/conv2d_1/kernel/part_1:0	€Á
!cnn/batch_normalization_1/gamma:0"3*5
(cnn/batch_normalization_1/gamma/part_0:0	€*0
(cnn/batch_normalization_1/gamma/part_1:0*0
(cnn/batch_normalization_1/gamma/part_2:0á
 cnn/batch_normalization_1/beta:0"3*4
'cnn/batch_normalization_1/beta/part_0:0	€*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0*B
'cnn/batch_normalization_1/beta/part_2:0
198.18.7.12:CPU:0–
cnn/dense/kernel:0"1,3*2
cnn/dense/kernel/part_0:0
198.18.7.11:CPU:0*$
cnn/dense/kernel/part_1:0€*!
cnn/dense/kernel/part_2:0’
cnn/dense/bias:0"8*"
cnn/dense/bias/part_0:0€*!
cnn/dense/bias/part_1:0*2
cnn/dense/bias/part_2:0
198.18.7.11:CPU:0*2
cnn/dense/bias/part_3:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_4:0
198.18.7.13:CPU:0*2
cnn/dense/bias/part_5:0
198.18.7.13:CPU:0*2
cnn/dense/bias/part_6:0
198.18.7.11:CPU:0*0
cnn/dense/bias/part_7:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search