
search-5cf6d70d1cf9
transformer/positions:0%
transformer/tokens/embeddings:01
+transformer/block0/attention/query/kernel:0/
)transformer/block0/attention/query/bias:0/
)transformer/block0/attention/key/kernel:0-
'transformer/block0/attention/key/bias:01
+transformer/block0/attention/value/kernel:0/
)transformer/block0/attention/value/bias:0<
6transformer/block0/attention/attention_output/kernel:0:
4transformer/block0/attention/attention_output/bias:0&
 transformer/block0/norm1/gamma:0%
transformer/block0/norm1/beta:0%
transformer/block0/ff1/kernel:0#
transformer/block0/ff1/bias:0%
transformer/block0/ff2/kernel:0#
transformer/block0/ff2/bias:0&
 transformer/block0/norm2/gamma:0%
transformer/block0/norm2/beta:01
+transformer/block1/attention/query/kernel:0/
)transformer/block1/attention/query/bias:0/
)transformer/block1/attention/key/kernel:0-
'transformer/block1/attention/key/bias:01
+transformer/block1/attention/value/kernel:0/
)transformer/block1/attention/value/bias:0<
6transformer/block1/attention/attention_output/kernel:0:
4transformer/block1/attention/attention_output/bias:0&
 transformer/block1/norm1/gamma:0%
transformer/block1/norm1/beta:0%
transformer/block1/ff1/kernel:0#
transformer/block1/ff1/bias:0%
transformer/block1/ff2/kernel:0#
transformer/block1/ff2/bias:0&
 transformer/block1/norm2/gamma:0%
transformer/block1/norm2/beta:0
transformer/head/kernel:0
transformer/head/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search