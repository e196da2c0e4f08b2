
search-2b5f2b7eb0c2Ù
cnn/conv2d/kernel:0"1,1,1,4*'
cnn/conv2d/kernel/part_0:0	€*5
cnn/conv2d/kernel/part_1:0
198.18.7.12:CPU:0*"
cnn/conv2d/kernel/part_2:0*5
cnn/conv2d/kernel/part_3:0
198.18.7.12:CPU:0Û
cnn/batch_normalization/gamma:0"3*?
&cnn/batch_normalization/gamma/part_0:0
198.18.7.13:CPU:0*3
&cnn/batch_normalization/gamma/part_1:0	€*?
&cnn/batch_normalization/gamma/part_2:0
198.18.7.11:CPU:0Ã
cnn/batch_normalization/beta:0"3*-
%cnn/batch_normalization/beta/part_0:0*>
%cnn/batch_normalization/beta/part_1:0
198.18.7.11:CPU:0*/
%cnn/batch_normalization/beta/part_2:0.
cnn/conv2d_1/kernel:0
198.18.7.13:CPU:0®
!cnn/batch_normalization_1/gamma:0"2*C
(cnn/batch_normalization_1/gamma/part_0:0
198.18.7.13:CPU:0*A
(cnn/batch_normalization_1/gamma/part_1:0
198.18.7.13:CPU:0Œ
 cnn/batch_normalization_1/beta:0"2*1
'cnn/batch_normalization_1/beta/part_0:0*2
'cnn/batch_normalization_1/beta/part_1:0€
cnn/dense/kernel:0
cnn/dense/bias:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search