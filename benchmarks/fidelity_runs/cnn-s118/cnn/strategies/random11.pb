
search-9d4b6626743b
cnn/conv2d/kernel:0"1,1,1,3*"
cnn/conv2d/kernel/part_0:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.11:CPU:0*"
cnn/conv2d/kernel/part_2:0
cnn/batch_normalization/gamma:0"8*.
&cnn/batch_normalization/gamma/part_0:0*?
&cnn/batch_normalization/gamma/part_1:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_2:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_3:0
198.18.7.11:CPU:0*?
&cnn/batch_normalization/gamma/part_4:0
198.18.7.11:CPU:0*0
&cnn/batch_normalization/gamma/part_5:0*?
&cnn/batch_normalization/gamma/part_6:0
198.18.7.12:CPU:0*0
&cnn/batch_normalization/gamma/part_7:0×
cnn/batch_normalization/beta:0"8*/
%cnn/batch_normalization/beta/part_0:0*-
%cnn/batch_normalization/beta/part_1:0*-
%cnn/batch_normalization/beta/part_2:0*@
%cnn/batch_normalization/beta/part_3:0
198.18.7.13:CPU:0*2
%cnn/batch_normalization/beta/part_4:0	€*-
%cnn/batch_normalization/beta/part_5:0*>
%cnn/batch_normalization/beta/part_6:0
198.18.7.13:CPU:0*>
%cnn/batch_normalization/beta/part_7:0
198.18.7.12:CPU:00
cnn/conv2d_1/kernel:0
198.18.7.13:CPU:0—
!cnn/batch_normalization_1/gamma:0"4*A
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.13:CPU:0*2
(cnn/batch_normalization_1/gamma/part_1:0*5
(cnn/batch_normalization_1/gamma/part_2:0	€*A
(cnn/batch_normalization_1/gamma/part_3:0
198.18.7.11:CPU:0*
 cnn/batch_normalization_1/beta:0
cnn/dense/kernel:0	€ã
cnn/dense/bias:0"10*0
cnn/dense/bias/part_0:0
198.18.7.11:CPU:0*"
cnn/dense/bias/part_1:0€*0
cnn/dense/bias/part_2:0
198.18.7.13:CPU:0*0
cnn/dense/bias/part_3:0
198.18.7.13:CPU:0*
cnn/dense/bias/part_4:0*2
cnn/dense/bias/part_5:0
198.18.7.11:CPU:0*$
cnn/dense/bias/part_6:0	€*0
cnn/dense/bias/part_7:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_8:0
198.18.7.12:CPU:0*0
cnn/dense/bias/part_9:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search