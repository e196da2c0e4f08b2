
search-14cc9279e3e1h
cnn/conv2d/kernel:0"1,2,1,1*$
cnn/conv2d/kernel/part_0:0*"
cnn/conv2d/kernel/part_1:0Ú
cnn/batch_normalization/gamma:0"3*A
&cnn/batch_normalization/gamma/part_0:0
198.18.7.12:CPU:0*?
&cnn/batch_normalization/gamma/part_1:0
198.18.7.11:CPU:0*0
&cnn/batch_normalization/gamma/part_2:0Å
cnn/batch_normalization/beta:0"3*-
%cnn/batch_normalization/beta/part_0:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.12:CPU:0*/
%cnn/batch_normalization/beta/part_2:0
cnn/conv2d_1/kernel:0"1,1,1,2*$
cnn/conv2d_1/kernel/part_0:0*7
cnn/conv2d_1/kernel/part_1:0
198.18.7.11:CPU:0Â
!cnn/batch_normalization_1/gamma:0"3*3
(cnn/batch_normalization_1/gamma/part_0:0€*.
(cnn/batch_normalization_1/gamma/part_1:0*5
(cnn/batch_normalization_1/gamma/part_2:0	€«
 cnn/batch_normalization_1/beta:0"2*B
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.12:CPU:0*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0i
cnn/dense/kernel:0"2,1*&
cnn/dense/kernel/part_0:0	€*&
cnn/dense/kernel/part_1:0	€¯
cnn/dense/bias:0"8*0
cnn/dense/bias/part_0:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_1:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_2:0
198.18.7.12:CPU:0*0
cnn/dense/bias/part_3:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_4:0
198.18.7.11:CPU:0*2
cnn/dense/bias/part_5:0
198.18.7.11:CPU:0*0
cnn/dense/bias/part_6:0
198.18.7.11:CPU:0*2
cnn/dense/bias/part_7:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search