
search-0cf6e803dade
cnn/conv2d/kernel:0%
cnn/batch_normalization/gamma:0$
cnn/batch_normalization/beta:0
cnn/conv2d_1/kernel:0'
!cnn/batch_normalization_1/gamma:0&
 cnn/batch_normalization_1/beta:0
cnn/dense/kernel:0
cnn/dense/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search