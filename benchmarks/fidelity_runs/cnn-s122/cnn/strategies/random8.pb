
search-e6094fb54adbè
cnn/conv2d/kernel:0"1,1,1,8*5
cnn/conv2d/kernel/part_0:0
198.18.7.13:CPU:0*%
cnn/conv2d/kernel/part_1:0Ä*5
cnn/conv2d/kernel/part_2:0
198.18.7.11:CPU:0*$
cnn/conv2d/kernel/part_3:0*3
cnn/conv2d/kernel/part_4:0
198.18.7.12:CPU:0*5
cnn/conv2d/kernel/part_5:0
198.18.7.11:CPU:0*$
cnn/conv2d/kernel/part_6:0*"
cnn/conv2d/kernel/part_7:0Î
cnn/batch_normalization/gamma:0"16*0
&cnn/batch_normalization/gamma/part_0:0*1
&cnn/batch_normalization/gamma/part_1:0Ä*A
&cnn/batch_normalization/gamma/part_2:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_3:0
198.18.7.12:CPU:0*0
&cnn/batch_normalization/gamma/part_4:0*?
&cnn/batch_normalization/gamma/part_5:0
198.18.7.11:CPU:0*0
&cnn/batch_normalization/gamma/part_6:0*?
&cnn/batch_normalization/gamma/part_7:0
198.18.7.11:CPU:0*?
&cnn/batch_normalization/gamma/part_8:0
198.18.7.13:CPU:0*1
&cnn/batch_normalization/gamma/part_9:0Ä*@
'cnn/batch_normalization/gamma/part_10:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization/gamma/part_11:0
198.18.7.11:CPU:0*@
'cnn/batch_normalization/gamma/part_12:0
198.18.7.11:CPU:0*1
'cnn/batch_normalization/gamma/part_13:0*@
'cnn/batch_normalization/gamma/part_14:0
198.18.7.13:CPU:0*B
'cnn/batch_normalization/gamma/part_15:0
198.18.7.11:CPU:0ñ
cnn/batch_normalization/beta:0"2*/
%cnn/batch_normalization/beta/part_0:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.13:CPU:0∞
cnn/conv2d_1/kernel:0"1,1,1,8*7
cnn/conv2d_1/kernel/part_0:0
198.18.7.12:CPU:0*5
cnn/conv2d_1/kernel/part_1:0
198.18.7.11:CPU:0*7
cnn/conv2d_1/kernel/part_2:0
198.18.7.11:CPU:0*5
cnn/conv2d_1/kernel/part_3:0
198.18.7.13:CPU:0*7
cnn/conv2d_1/kernel/part_4:0
198.18.7.12:CPU:0*&
cnn/conv2d_1/kernel/part_5:0*)
cnn/conv2d_1/kernel/part_6:0	Ä*"
cnn/conv2d_1/kernel/part_7:0¢
!cnn/batch_normalization_1/gamma:0"8*C
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.12:CPU:0*2
(cnn/batch_normalization_1/gamma/part_1:0*A
(cnn/batch_normalization_1/gamma/part_2:0
198.18.7.11:CPU:0*A
(cnn/batch_normalization_1/gamma/part_3:0
198.18.7.11:CPU:0*0
(cnn/batch_normalization_1/gamma/part_4:0*C
(cnn/batch_normalization_1/gamma/part_5:0
198.18.7.11:CPU:0*A
(cnn/batch_normalization_1/gamma/part_6:0
198.18.7.11:CPU:0*A
(cnn/batch_normalization_1/gamma/part_7:0
198.18.7.12:CPU:0ô
 cnn/batch_normalization_1/beta:0"8*@
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0*@
'cnn/batch_normalization_1/beta/part_2:0
198.18.7.13:CPU:0*1
'cnn/batch_normalization_1/beta/part_3:0*B
'cnn/batch_normalization_1/beta/part_4:0
198.18.7.12:CPU:0*-
'cnn/batch_normalization_1/beta/part_5:0*B
'cnn/batch_normalization_1/beta/part_6:0
198.18.7.13:CPU:0*B
'cnn/batch_normalization_1/beta/part_7:0
198.18.7.13:CPU:0ø
cnn/dense/kernel:0"1,10*#
cnn/dense/kernel/part_0:0*2
cnn/dense/kernel/part_1:0
198.18.7.13:CPU:0*!
cnn/dense/kernel/part_2:0*4
cnn/dense/kernel/part_3:0
198.18.7.11:CPU:0*&
cnn/dense/kernel/part_4:0	Ä*&
cnn/dense/kernel/part_5:0	Ä*!
cnn/dense/kernel/part_6:0*#
cnn/dense/kernel/part_7:0*#
cnn/dense/kernel/part_8:0*4
cnn/dense/kernel/part_9:0
198.18.7.13:CPU:0„
cnn/dense/bias:0"8*
cnn/dense/bias/part_0:0*0
cnn/dense/bias/part_1:0
198.18.7.12:CPU:0*
cnn/dense/bias/part_2:0*0
cnn/dense/bias/part_3:0
198.18.7.13:CPU:0*0
cnn/dense/bias/part_4:0
198.18.7.13:CPU:0*
cnn/dense/bias/part_5:0*2
cnn/dense/bias/part_6:0
198.18.7.12:CPU:0*
cnn/dense/bias/part_7:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search