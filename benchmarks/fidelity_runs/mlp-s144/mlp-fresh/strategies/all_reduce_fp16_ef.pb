
search-64e1ce30f80c
mlp/dense/kernel:0
mlp/dense/bias:0
mlp/dense_1/kernel:0
mlp/dense_1/bias:0
mlp/dense_2/kernel:0
mlp/dense_2/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search