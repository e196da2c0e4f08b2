
search-b6b8fd539d01å
cnn/conv2d/kernel:0"1,2,1,1*5
cnn/conv2d/kernel/part_0:0
198.18.7.11:CPU:0*5
cnn/conv2d/kernel/part_1:0
198.18.7.11:CPU:0õ
cnn/batch_normalization/gamma:0"4*A
&cnn/batch_normalization/gamma/part_0:0
198.18.7.13:CPU:0*A
&cnn/batch_normalization/gamma/part_1:0
198.18.7.12:CPU:0*.
&cnn/batch_normalization/gamma/part_2:0*?
&cnn/batch_normalization/gamma/part_3:0
198.18.7.11:CPU:0˘
cnn/batch_normalization/beta:0"8*/
%cnn/batch_normalization/beta/part_0:0*@
%cnn/batch_normalization/beta/part_1:0
198.18.7.11:CPU:0*+
%cnn/batch_normalization/beta/part_2:0*@
%cnn/batch_normalization/beta/part_3:0
198.18.7.12:CPU:0*>
%cnn/batch_normalization/beta/part_4:0
198.18.7.13:CPU:0*0
%cnn/batch_normalization/beta/part_5:0Ä*>
%cnn/batch_normalization/beta/part_6:0
198.18.7.11:CPU:0*@
%cnn/batch_normalization/beta/part_7:0
198.18.7.11:CPU:0∂
cnn/conv2d_1/kernel:0"1,1,1,3*5
cnn/conv2d_1/kernel/part_0:0
198.18.7.11:CPU:0*5
cnn/conv2d_1/kernel/part_1:0
198.18.7.13:CPU:0*&
cnn/conv2d_1/kernel/part_2:0ê
!cnn/batch_normalization_1/gamma:0"4*0
(cnn/batch_normalization_1/gamma/part_0:0*.
(cnn/batch_normalization_1/gamma/part_1:0*C
(cnn/batch_normalization_1/gamma/part_2:0
198.18.7.12:CPU:0*A
(cnn/batch_normalization_1/gamma/part_3:0
198.18.7.11:CPU:0˙
 cnn/batch_normalization_1/beta:0"8*4
'cnn/batch_normalization_1/beta/part_0:0	Ä*/
'cnn/batch_normalization_1/beta/part_1:0*1
'cnn/batch_normalization_1/beta/part_2:0*/
'cnn/batch_normalization_1/beta/part_3:0*@
'cnn/batch_normalization_1/beta/part_4:0
198.18.7.12:CPU:0*@
'cnn/batch_normalization_1/beta/part_5:0
198.18.7.11:CPU:0*B
'cnn/batch_normalization_1/beta/part_6:0
198.18.7.13:CPU:0*@
'cnn/batch_normalization_1/beta/part_7:0
198.18.7.13:CPU:0ô
cnn/dense/kernel:0"1,3*#
cnn/dense/kernel/part_0:0*4
cnn/dense/kernel/part_1:0
198.18.7.11:CPU:0*#
cnn/dense/kernel/part_2:0
cnn/dense/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search