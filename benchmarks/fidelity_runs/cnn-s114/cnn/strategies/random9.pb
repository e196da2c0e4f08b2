
search-3660520e325ew
cnn/conv2d/kernel:0"1,1,1,2*5
cnn/conv2d/kernel/part_0:0
198.18.7.12:CPU:0* 
cnn/conv2d/kernel/part_1:0ö
cnn/batch_normalization/gamma:0"2*3
&cnn/batch_normalization/gamma/part_0:0	Ä*?
&cnn/batch_normalization/gamma/part_1:0
198.18.7.11:CPU:0î
cnn/batch_normalization/beta:0"2*>
%cnn/batch_normalization/beta/part_0:0
198.18.7.11:CPU:0*/
%cnn/batch_normalization/beta/part_1:0œ
cnn/conv2d_1/kernel:0"1,1,4,1*$
cnn/conv2d_1/kernel/part_0:0*5
cnn/conv2d_1/kernel/part_1:0
198.18.7.11:CPU:0*'
cnn/conv2d_1/kernel/part_2:0Ä*'
cnn/conv2d_1/kernel/part_3:0ÄÅ
!cnn/batch_normalization_1/gamma:0"4*C
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.13:CPU:0*0
(cnn/batch_normalization_1/gamma/part_1:0*0
(cnn/batch_normalization_1/gamma/part_2:0*0
(cnn/batch_normalization_1/gamma/part_3:0ò
 cnn/batch_normalization_1/beta:0"2*@
'cnn/batch_normalization_1/beta/part_0:0
198.18.7.12:CPU:0*/
'cnn/batch_normalization_1/beta/part_1:0u
cnn/dense/kernel:0"1,2*$
cnn/dense/kernel/part_0:0Ä*4
cnn/dense/kernel/part_1:0
198.18.7.11:CPU:0◊
cnn/dense/bias:0"10* 
cnn/dense/bias/part_0:0Ä*0
cnn/dense/bias/part_1:0
198.18.7.11:CPU:0*$
cnn/dense/bias/part_2:0	Ä*0
cnn/dense/bias/part_3:0
198.18.7.12:CPU:0*0
cnn/dense/bias/part_4:0
198.18.7.12:CPU:0*2
cnn/dense/bias/part_5:0
198.18.7.12:CPU:0*$
cnn/dense/bias/part_6:0	Ä*2
cnn/dense/bias/part_7:0
198.18.7.11:CPU:0*2
cnn/dense/bias/part_8:0
198.18.7.12:CPU:0*
cnn/dense/bias/part_9:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search