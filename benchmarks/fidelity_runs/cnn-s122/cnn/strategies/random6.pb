
search-6db30d79e736°
cnn/conv2d/kernel:0"1,3,1,1*3
cnn/conv2d/kernel/part_0:0
198.18.7.11:CPU:0*$
cnn/conv2d/kernel/part_1:0*5
cnn/conv2d/kernel/part_2:0
198.18.7.13:CPU:0Ú
cnn/batch_normalization/gamma:0"3*A
&cnn/batch_normalization/gamma/part_0:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_1:0
198.18.7.11:CPU:0*.
&cnn/batch_normalization/gamma/part_2:0Ö
cnn/batch_normalization/beta:0"16*0
%cnn/batch_normalization/beta/part_0:0€*2
%cnn/batch_normalization/beta/part_1:0	€*>
%cnn/batch_normalization/beta/part_2:0
198.18.7.11:CPU:0*>
%cnn/batch_normalization/beta/part_3:0
198.18.7.11:CPU:0*>
%cnn/batch_normalization/beta/part_4:0
198.18.7.11:CPU:0*>
%cnn/batch_normalization/beta/part_5:0
198.18.7.11:CPU:0*>
%cnn/batch_normalization/beta/part_6:0
198.18.7.12:CPU:0*>
%cnn/batch_normalization/beta/part_7:0
198.18.7.13:CPU:0*/
%cnn/batch_normalization/beta/part_8:0*@
%cnn/batch_normalization/beta/part_9:0
198.18.7.12:CPU:0*A
&cnn/batch_normalization/beta/part_10:0
198.18.7.13:CPU:0*0
&cnn/batch_normalization/beta/part_11:0*,
&cnn/batch_normalization/beta/part_12:0*0
&cnn/batch_normalization/beta/part_13:0*?
&cnn/batch_normalization/beta/part_14:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/beta/part_15:0
198.18.7.12:CPU:0«
cnn/conv2d_1/kernel:0"1,1,1,8*"
cnn/conv2d_1/kernel/part_0:0*7
cnn/conv2d_1/kernel/part_1:0
198.18.7.12:CPU:0*7
cnn/conv2d_1/kernel/part_2:0
198.18.7.12:CPU:0*5
cnn/conv2d_1/kernel/part_3:0
198.18.7.12:CPU:0*7
cnn/conv2d_1/kernel/part_4:0
198.18.7.11:CPU:0*"
cnn/conv2d_1/kernel/part_5:0*7
cnn/conv2d_1/kernel/part_6:0
198.18.7.12:CPU:0*&
cnn/conv2d_1/kernel/part_7:0à
!cnn/batch_normalization_1/gamma:0"3*0
(cnn/batch_normalization_1/gamma/part_0:0*C
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.11:CPU:0*A
(cnn/batch_normalization_1/gamma/part_2:0
198.18.7.12:CPU:0À
 cnn/batch_normalization_1/beta:0"16*-
'cnn/batch_normalization_1/beta/part_0:0*B
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.13:CPU:0*2
'cnn/batch_normalization_1/beta/part_2:0€*@
'cnn/batch_normalization_1/beta/part_3:0
198.18.7.11:CPU:0*1
'cnn/batch_normalization_1/beta/part_4:0*@
'cnn/batch_normalization_1/beta/part_5:0
198.18.7.12:CPU:0*B
'cnn/batch_normalization_1/beta/part_6:0
198.18.7.13:CPU:0*/
'cnn/batch_normalization_1/beta/part_7:0*-
'cnn/batch_normalization_1/beta/part_8:0*1
'cnn/batch_normalization_1/beta/part_9:0*2
(cnn/batch_normalization_1/beta/part_10:0*0
(cnn/batch_normalization_1/beta/part_11:0*2
(cnn/batch_normalization_1/beta/part_12:0*C
(cnn/batch_normalization_1/beta/part_13:0
198.18.7.13:CPU:0*A
(cnn/batch_normalization_1/beta/part_14:0
198.18.7.12:CPU:0*A
(cnn/batch_normalization_1/beta/part_15:0
198.18.7.11:CPU:0•
cnn/dense/kernel:0"1,3*!
cnn/dense/kernel/part_0:0*#
cnn/dense/kernel/part_1:0*2
cnn/dense/kernel/part_2:0
198.18.7.12:CPU:0h
cnn/dense/bias:0"2*
cnn/dense/bias/part_0:0*0
cnn/dense/bias/part_1:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search