
search-3f7711357b82ê
transformer/positions:0"2,1*7
transformer/positions/part_0:0
198.18.7.11:CPU:0*7
transformer/positions/part_1:0
198.18.7.11:CPU:0˝
transformer/tokens/embeddings:0"16,1*3
&transformer/tokens/embeddings/part_0:0	Ä*3
&transformer/tokens/embeddings/part_1:0	Ä*3
&transformer/tokens/embeddings/part_2:0	Ä*3
&transformer/tokens/embeddings/part_3:0	Ä*3
&transformer/tokens/embeddings/part_4:0	Ä*3
&transformer/tokens/embeddings/part_5:0	Ä*3
&transformer/tokens/embeddings/part_6:0	Ä*3
&transformer/tokens/embeddings/part_7:0	Ä*3
&transformer/tokens/embeddings/part_8:0	Ä*3
&transformer/tokens/embeddings/part_9:0	Ä*4
'transformer/tokens/embeddings/part_10:0	Ä*4
'transformer/tokens/embeddings/part_11:0	Ä*4
'transformer/tokens/embeddings/part_12:0	Ä*4
'transformer/tokens/embeddings/part_13:0	Ä*4
'transformer/tokens/embeddings/part_14:0	Ä*4
'transformer/tokens/embeddings/part_15:0	ÄŒ
+transformer/block0/attention/query/kernel:0"2,1,1*K
2transformer/block0/attention/query/kernel/part_0:0
198.18.7.11:CPU:0*K
2transformer/block0/attention/query/kernel/part_1:0
198.18.7.11:CPU:0∆
)transformer/block0/attention/query/bias:0"2,1*I
0transformer/block0/attention/query/bias/part_0:0
198.18.7.11:CPU:0*I
0transformer/block0/attention/query/bias/part_1:0
198.18.7.11:CPU:0»
)transformer/block0/attention/key/kernel:0"2,1,1*I
0transformer/block0/attention/key/kernel/part_0:0
198.18.7.11:CPU:0*I
0transformer/block0/attention/key/kernel/part_1:0
198.18.7.11:CPU:0¿
'transformer/block0/attention/key/bias:0"2,1*G
.transformer/block0/attention/key/bias/part_0:0
198.18.7.11:CPU:0*G
.transformer/block0/attention/key/bias/part_1:0
198.18.7.11:CPU:0Œ
+transformer/block0/attention/value/kernel:0"2,1,1*K
2transformer/block0/attention/value/kernel/part_0:0
198.18.7.11:CPU:0*K
2transformer/block0/attention/value/kernel/part_1:0
198.18.7.11:CPU:0∆
)transformer/block0/attention/value/bias:0"2,1*I
0transformer/block0/attention/value/bias/part_0:0
198.18.7.11:CPU:0*I
0transformer/block0/attention/value/bias/part_1:0
198.18.7.11:CPU:0Ô
6transformer/block0/attention/attention_output/kernel:0"2,1,1*V
=transformer/block0/attention/attention_output/kernel/part_0:0
198.18.7.11:CPU:0*V
=transformer/block0/attention/attention_output/kernel/part_1:0
198.18.7.11:CPU:0Â
4transformer/block0/attention/attention_output/bias:0"2*T
;transformer/block0/attention/attention_output/bias/part_0:0
198.18.7.11:CPU:0*T
;transformer/block0/attention/attention_output/bias/part_1:0
198.18.7.11:CPU:0©
 transformer/block0/norm1/gamma:0"2*@
'transformer/block0/norm1/gamma/part_0:0
198.18.7.11:CPU:0*@
'transformer/block0/norm1/gamma/part_1:0
198.18.7.11:CPU:0¶
transformer/block0/norm1/beta:0"2*?
&transformer/block0/norm1/beta/part_0:0
198.18.7.11:CPU:0*?
&transformer/block0/norm1/beta/part_1:0
198.18.7.11:CPU:0®
transformer/block0/ff1/kernel:0"2,1*?
&transformer/block0/ff1/kernel/part_0:0
198.18.7.11:CPU:0*?
&transformer/block0/ff1/kernel/part_1:0
198.18.7.11:CPU:0†
transformer/block0/ff1/bias:0"2*=
$transformer/block0/ff1/bias/part_0:0
198.18.7.11:CPU:0*=
$transformer/block0/ff1/bias/part_1:0
198.18.7.11:CPU:0®
transformer/block0/ff2/kernel:0"2,1*?
&transformer/block0/ff2/kernel/part_0:0
198.18.7.11:CPU:0*?
&transformer/block0/ff2/kernel/part_1:0
198.18.7.11:CPU:0†
transformer/block0/ff2/bias:0"2*=
$transformer/block0/ff2/bias/part_0:0
198.18.7.11:CPU:0*=
$transformer/block0/ff2/bias/part_1:0
198.18.7.11:CPU:0©
 transformer/block0/norm2/gamma:0"2*@
'transformer/block0/norm2/gamma/part_0:0
198.18.7.11:CPU:0*@
'transformer/block0/norm2/gamma/part_1:0
198.18.7.11:CPU:0¶
transformer/block0/norm2/beta:0"2*?
&transformer/block0/norm2/beta/part_0:0
198.18.7.11:CPU:0*?
&transformer/block0/norm2/beta/part_1:0
198.18.7.11:CPU:0Œ
+transformer/block1/attention/query/kernel:0"2,1,1*K
2transformer/block1/attention/query/kernel/part_0:0
198.18.7.11:CPU:0*K
2transformer/block1/attention/query/kernel/part_1:0
198.18.7.11:CPU:0∆
)transformer/block1/attention/query/bias:0"2,1*I
0transformer/block1/attention/query/bias/part_0:0
198.18.7.11:CPU:0*I
0transformer/block1/attention/query/bias/part_1:0
198.18.7.11:CPU:0»
)transformer/block1/attention/key/kernel:0"2,1,1*I
0transformer/block1/attention/key/kernel/part_0:0
198.18.7.11:CPU:0*I
0transformer/block1/attention/key/kernel/part_1:0
198.18.7.11:CPU:0¿
'transformer/block1/attention/key/bias:0"2,1*G
.transformer/block1/attention/key/bias/part_0:0
198.18.7.11:CPU:0*G
.transformer/block1/attention/key/bias/part_1:0
198.18.7.11:CPU:0Œ
+transformer/block1/attention/value/kernel:0"2,1,1*K
2transformer/block1/attention/value/kernel/part_0:0
198.18.7.11:CPU:0*K
2transformer/block1/attention/value/kernel/part_1:0
198.18.7.11:CPU:0∆
)transformer/block1/attention/value/bias:0"2,1*I
0transformer/block1/attention/value/bias/part_0:0
198.18.7.11:CPU:0*I
0transformer/block1/attention/value/bias/part_1:0
198.18.7.11:CPU:0Ô
6transformer/block1/attention/attention_output/kernel:0"2,1,1*V
=transformer/block1/attention/attention_output/kernel/part_0:0
198.18.7.11:CPU:0*V
=transformer/block1/attention/attention_output/kernel/part_1:0
198.18.7.11:CPU:0Â
4transformer/block1/attention/attention_output/bias:0"2*T
;transformer/block1/attention/attention_output/bias/part_0:0
198.18.7.11:CPU:0*T
;transformer/block1/attention/attention_output/bias/part_1:0
198.18.7.11:CPU:0©
 transformer/block1/norm1/gamma:0"2*@
'transformer/block1/norm1/gamma/part_0:0
198.18.7.11:CPU:0*@
'transformer/block1/norm1/gamma/part_1:0
198.18.7.11:CPU:0¶
transformer/block1/norm1/beta:0"2*?
&transformer/block1/norm1/beta/part_0:0
198.18.7.11:CPU:0*?
&transformer/block1/norm1/beta/part_1:0
198.18.7.11:CPU:0®
transformer/block1/ff1/kernel:0"2,1*?
&transformer/block1/ff1/kernel/part_0:0
198.18.7.11:CPU:0*?
&transformer/block1/ff1/kernel/part_1:0
198.18.7.11:CPU:0†
transformer/block1/ff1/bias:0"2*=
$transformer/block1/ff1/bias/part_0:0
198.18.7.11:CPU:0*=
$transformer/block1/ff1/bias/part_1:0
198.18.7.11:CPU:0®
transformer/block1/ff2/kernel:0"2,1*?
&transformer/block1/ff2/kernel/part_0:0
198.18.7.11:CPU:0*?
&transformer/block1/ff2/kernel/part_1:0
198.18.7.11:CPU:0†
transformer/block1/ff2/bias:0"2*=
$transformer/block1/ff2/bias/part_0:0
198.18.7.11:CPU:0*=
$transformer/block1/ff2/bias/part_1:0
198.18.7.11:CPU:0©
 transformer/block1/norm2/gamma:0"2*@
'transformer/block1/norm2/gamma/part_0:0
198.18.7.11:CPU:0*@
'transformer/block1/norm2/gamma/part_1:0
198.18.7.11:CPU:0¶
transformer/block1/norm2/beta:0"2*?
&transformer/block1/norm2/beta/part_0:0
198.18.7.11:CPU:0*?
&transformer/block1/norm2/beta/part_1:0
198.18.7.11:CPU:0ñ
transformer/head/kernel:0"2,1*9
 transformer/head/kernel/part_0:0
198.18.7.11:CPU:0*9
 transformer/head/kernel/part_1:0
198.18.7.11:CPU:0é
transformer/head/bias:0"2*7
transformer/head/bias/part_0:0
198.18.7.11:CPU:0*7
transformer/head/bias/part_1:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search