
search-80382ec6983a
cnn/conv2d/kernel:0ÄÇ
cnn/batch_normalization/gamma:0"8*A
&cnn/batch_normalization/gamma/part_0:0
198.18.7.11:CPU:0*.
&cnn/batch_normalization/gamma/part_1:0*A
&cnn/batch_normalization/gamma/part_2:0
198.18.7.12:CPU:0*?
&cnn/batch_normalization/gamma/part_3:0
198.18.7.12:CPU:0*/
&cnn/batch_normalization/gamma/part_4:0Ä*?
&cnn/batch_normalization/gamma/part_5:0
198.18.7.11:CPU:0*A
&cnn/batch_normalization/gamma/part_6:0
198.18.7.13:CPU:0*0
&cnn/batch_normalization/gamma/part_7:07
cnn/batch_normalization/beta:0
198.18.7.13:CPU:0
cnn/conv2d_1/kernel:0"1,2,1,1*&
cnn/conv2d_1/kernel/part_0:0*5
cnn/conv2d_1/kernel/part_1:0
198.18.7.12:CPU:0è
!cnn/batch_normalization_1/gamma:0"8*A
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.13:CPU:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.11:CPU:0*2
(cnn/batch_normalization_1/gamma/part_2:0*A
(cnn/batch_normalization_1/gamma/part_3:0
198.18.7.12:CPU:0*A
(cnn/batch_normalization_1/gamma/part_4:0
198.18.7.12:CPU:0*2
(cnn/batch_normalization_1/gamma/part_5:0*A
(cnn/batch_normalization_1/gamma/part_6:0
198.18.7.12:CPU:0*0
(cnn/batch_normalization_1/gamma/part_7:0©
 cnn/batch_normalization_1/beta:0"2*@
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_1:0
198.18.7.12:CPU:0Ï
cnn/dense/kernel:0"16,1*2
cnn/dense/kernel/part_0:0
198.18.7.13:CPU:0*2
cnn/dense/kernel/part_1:0
198.18.7.13:CPU:0*4
cnn/dense/kernel/part_2:0
198.18.7.13:CPU:0*4
cnn/dense/kernel/part_3:0
198.18.7.11:CPU:0*$
cnn/dense/kernel/part_4:0Ä*&
cnn/dense/kernel/part_5:0	Ä*4
cnn/dense/kernel/part_6:0
198.18.7.12:CPU:0*#
cnn/dense/kernel/part_7:0*$
cnn/dense/kernel/part_8:0Ä*#
cnn/dense/kernel/part_9:0*$
cnn/dense/kernel/part_10:0*'
cnn/dense/kernel/part_11:0	Ä*5
cnn/dense/kernel/part_12:0
198.18.7.12:CPU:0*'
cnn/dense/kernel/part_13:0	Ä*"
cnn/dense/kernel/part_14:0*5
cnn/dense/kernel/part_15:0
198.18.7.12:CPU:0)
cnn/dense/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search