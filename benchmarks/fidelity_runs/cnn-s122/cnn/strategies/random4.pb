
search-602f7b07645ck
cnn/conv2d/kernel:0"1,2,1,1*'
cnn/conv2d/kernel/part_0:0	€*"
cnn/conv2d/kernel/part_1:0ã
cnn/batch_normalization/gamma:0"8*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.11:CPU:0*?
&cnn/batch_normalization/gamma/part_1:0
198.18.7.13:CPU:0*0
&cnn/batch_normalization/gamma/part_2:0*0
&cnn/batch_normalization/gamma/part_3:0*0
&cnn/batch_normalization/gamma/part_4:0*0
&cnn/batch_normalization/gamma/part_5:0*0
&cnn/batch_normalization/gamma/part_6:0*A
&cnn/batch_normalization/gamma/part_7:0
198.18.7.11:CPU:0§
cnn/batch_normalization/beta:0"2*@
%cnn/batch_normalization/beta/part_0:0
198.18.7.11:CPU:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.11:CPU:0’
cnn/conv2d_1/kernel:0"1,1,2,1*7
cnn/conv2d_1/kernel/part_0:0
198.18.7.11:CPU:0*7
cnn/conv2d_1/kernel/part_1:0
198.18.7.13:CPU:0.
!cnn/batch_normalization_1/gamma:0	€í
 cnn/batch_normalization_1/beta:0"4*1
'cnn/batch_normalization_1/beta/part_0:0*/
'cnn/batch_normalization_1/beta/part_1:0*/
'cnn/batch_normalization_1/beta/part_2:0*1
'cnn/batch_normalization_1/beta/part_3:0a
cnn/dense/kernel:0"2,1*#
cnn/dense/kernel/part_0:0*!
cnn/dense/kernel/part_1:0+
cnn/dense/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search