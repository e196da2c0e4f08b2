
search-685447892826²
cnn/conv2d/kernel:0"3,1,1,1*$
cnn/conv2d/kernel/part_0:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.11:CPU:0*5
cnn/conv2d/kernel/part_2:0
198.18.7.13:CPU:0˜
cnn/batch_normalization/gamma:0"2*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.11:CPU:0*1
&cnn/batch_normalization/gamma/part_1:0€Å
cnn/batch_normalization/beta:0"3*/
%cnn/batch_normalization/beta/part_0:0*-
%cnn/batch_normalization/beta/part_1:0*@
%cnn/batch_normalization/beta/part_2:0
198.18.7.13:CPU:0¨
cnn/conv2d_1/kernel:0"1,1,3,1*)
cnn/conv2d_1/kernel/part_0:0	€*$
cnn/conv2d_1/kernel/part_1:0*5
cnn/conv2d_1/kernel/part_2:0
198.18.7.12:CPU:0°
!cnn/batch_normalization_1/gamma:0"2*C
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.11:CPU:0*C
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.12:CPU:0‹
 cnn/batch_normalization_1/beta:0"4*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0*-
'cnn/batch_normalization_1/beta/part_2:0*-
'cnn/batch_normalization_1/beta/part_3:0-
cnn/dense/kernel:0
198.18.7.13:CPU:0
cnn/dense/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search