
search-415c9f874ddd.
cnn/conv2d/kernel:0
198.18.7.11:CPU:0:
cnn/batch_normalization/gamma:0
198.18.7.12:CPU:0À
cnn/batch_normalization/beta:0"8*-
%cnn/batch_normalization/beta/part_0:0*-
%cnn/batch_normalization/beta/part_1:0*2
%cnn/batch_normalization/beta/part_2:0	€*-
%cnn/batch_normalization/beta/part_3:0*+
%cnn/batch_normalization/beta/part_4:0*>
%cnn/batch_normalization/beta/part_5:0
198.18.7.12:CPU:0*-
%cnn/batch_normalization/beta/part_6:0*>
%cnn/batch_normalization/beta/part_7:0
198.18.7.12:CPU:0Ç
cnn/conv2d_1/kernel:0"1,1,1,3*5
cnn/conv2d_1/kernel/part_0:0
198.18.7.13:CPU:0*5
cnn/conv2d_1/kernel/part_1:0
198.18.7.11:CPU:0*7
cnn/conv2d_1/kernel/part_2:0
198.18.7.13:CPU:0Ó
!cnn/batch_normalization_1/gamma:0"3*2
(cnn/batch_normalization_1/gamma/part_0:0*C
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.13:CPU:0*2
(cnn/batch_normalization_1/gamma/part_2:0ˆ
 cnn/batch_normalization_1/beta:0"8*/
'cnn/batch_normalization_1/beta/part_0:0*B
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.13:CPU:0*-
'cnn/batch_normalization_1/beta/part_2:0*1
'cnn/batch_normalization_1/beta/part_3:0*B
'cnn/batch_normalization_1/beta/part_4:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_5:0
198.18.7.11:CPU:0*@
'cnn/batch_normalization_1/beta/part_6:0
198.18.7.13:CPU:0*B
'cnn/batch_normalization_1/beta/part_7:0
198.18.7.11:CPU:0Ô
cnn/dense/kernel:0"1,8*
cnn/dense/kernel/part_0:0*#
cnn/dense/kernel/part_1:0*$
cnn/dense/kernel/part_2:0€*2
cnn/dense/kernel/part_3:0
198.18.7.12:CPU:0*#
cnn/dense/kernel/part_4:0*&
cnn/dense/kernel/part_5:0	€*$
cnn/dense/kernel/part_6:0€*&
cnn/dense/kernel/part_7:0	€
cnn/dense/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search