
search-c7f833a06f08Œ
cnn/conv2d/kernel:0"2,1,1,1*5
cnn/conv2d/kernel/part_0:0
198.18.7.11:CPU:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.12:CPU:0:
cnn/batch_normalization/gamma:0
198.18.7.13:CPU:0&
cnn/batch_normalization/beta:0–
cnn/conv2d_1/kernel:0"1,1,8,1*&
cnn/conv2d_1/kernel/part_0:0*'
cnn/conv2d_1/kernel/part_1:0€*&
cnn/conv2d_1/kernel/part_2:0*7
cnn/conv2d_1/kernel/part_3:0
198.18.7.13:CPU:0*7
cnn/conv2d_1/kernel/part_4:0
198.18.7.11:CPU:0*'
cnn/conv2d_1/kernel/part_5:0€*)
cnn/conv2d_1/kernel/part_6:0	€*5
cnn/conv2d_1/kernel/part_7:0
198.18.7.11:CPU:0î
!cnn/batch_normalization_1/gamma:0"8*A
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.12:CPU:0*2
(cnn/batch_normalization_1/gamma/part_1:0*1
(cnn/batch_normalization_1/gamma/part_2:0€*A
(cnn/batch_normalization_1/gamma/part_3:0
198.18.7.12:CPU:0*0
(cnn/batch_normalization_1/gamma/part_4:0*0
(cnn/batch_normalization_1/gamma/part_5:0*A
(cnn/batch_normalization_1/gamma/part_6:0
198.18.7.13:CPU:0*2
(cnn/batch_normalization_1/gamma/part_7:0Ò
 cnn/batch_normalization_1/beta:0"8*/
'cnn/batch_normalization_1/beta/part_0:0*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.13:CPU:0*/
'cnn/batch_normalization_1/beta/part_2:0*/
'cnn/batch_normalization_1/beta/part_3:0*@
'cnn/batch_normalization_1/beta/part_4:0
198.18.7.11:CPU:0*/
'cnn/batch_normalization_1/beta/part_5:0*2
'cnn/batch_normalization_1/beta/part_6:0€*/
'cnn/batch_normalization_1/beta/part_7:0–
cnn/dense/kernel:0"1,3*&
cnn/dense/kernel/part_0:0	€*2
cnn/dense/kernel/part_1:0
198.18.7.11:CPU:0*
cnn/dense/kernel/part_2:0\
cnn/dense/bias:0"2*$
cnn/dense/bias/part_0:0	€*
cnn/dense/bias/part_1:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search