
search-3a4eb8411c77É
transformer/positions:0"3,1*7
transformer/positions/part_0:0
198.18.7.12:CPU:0*7
transformer/positions/part_1:0
198.18.7.12:CPU:0*7
transformer/positions/part_2:0
198.18.7.12:CPU:0ý
transformer/tokens/embeddings:0"16,1*3
&transformer/tokens/embeddings/part_0:0	€*3
&transformer/tokens/embeddings/part_1:0	€*3
&transformer/tokens/embeddings/part_2:0	€*3
&transformer/tokens/embeddings/part_3:0	€*3
&transformer/tokens/embeddings/part_4:0	€*3
&transformer/tokens/embeddings/part_5:0	€*3
&transformer/tokens/embeddings/part_6:0	€*3
&transformer/tokens/embeddings/part_7:0	€*3
&transformer/tokens/embeddings/part_8:0	€*3
&transformer/tokens/embeddings/part_9:0	€*4
'transformer/tokens/embeddings/part_10:0	€*4
'transformer/tokens/embeddings/part_11:0	€*4
'transformer/tokens/embeddings/part_12:0	€*4
'transformer/tokens/embeddings/part_13:0	€*4
'transformer/tokens/embeddings/part_14:0	€*4
'transformer/tokens/embeddings/part_15:0	€›
+transformer/block0/attention/query/kernel:0"3,1,1*K
2transformer/block0/attention/query/kernel/part_0:0
198.18.7.12:CPU:0*K
2transformer/block0/attention/query/kernel/part_1:0
198.18.7.12:CPU:0*K
2transformer/block0/attention/query/kernel/part_2:0
198.18.7.12:CPU:0‘
)transformer/block0/attention/query/bias:0"3,1*I
0transformer/block0/attention/query/bias/part_0:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/query/bias/part_1:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/query/bias/part_2:0
198.18.7.12:CPU:0“
)transformer/block0/attention/key/kernel:0"3,1,1*I
0transformer/block0/attention/key/kernel/part_0:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/key/kernel/part_1:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/key/kernel/part_2:0
198.18.7.12:CPU:0‰
'transformer/block0/attention/key/bias:0"3,1*G
.transformer/block0/attention/key/bias/part_0:0
198.18.7.12:CPU:0*G
.transformer/block0/attention/key/bias/part_1:0
198.18.7.12:CPU:0*G
.transformer/block0/attention/key/bias/part_2:0
198.18.7.12:CPU:0›
+transformer/block0/attention/value/kernel:0"3,1,1*K
2transformer/block0/attention/value/kernel/part_0:0
198.18.7.12:CPU:0*K
2transformer/block0/attention/value/kernel/part_1:0
198.18.7.12:CPU:0*K
2transformer/block0/attention/value/kernel/part_2:0
198.18.7.12:CPU:0‘
)transformer/block0/attention/value/bias:0"3,1*I
0transformer/block0/attention/value/bias/part_0:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/value/bias/part_1:0
198.18.7.12:CPU:0*I
0transformer/block0/attention/value/bias/part_2:0
198.18.7.12:CPU:0Ç
6transformer/block0/attention/attention_output/kernel:0"3,1,1*V
=transformer/block0/attention/attention_output/kernel/part_0:0
198.18.7.12:CPU:0*V
=transformer/block0/attention/attention_output/kernel/part_1:0
198.18.7.12:CPU:0*V
=transformer/block0/attention/attention_output/kernel/part_2:0
198.18.7.12:CPU:0»
4transformer/block0/attention/attention_output/bias:0"3*T
;transformer/block0/attention/attention_output/bias/part_0:0
198.18.7.12:CPU:0*T
;transformer/block0/attention/attention_output/bias/part_1:0
198.18.7.12:CPU:0*T
;transformer/block0/attention/attention_output/bias/part_2:0
198.18.7.12:CPU:0ë
 transformer/block0/norm1/gamma:0"3*@
'transformer/block0/norm1/gamma/part_0:0
198.18.7.12:CPU:0*@
'transformer/block0/norm1/gamma/part_1:0
198.18.7.12:CPU:0*@
'transformer/block0/norm1/gamma/part_2:0
198.18.7.12:CPU:0ç
transformer/block0/norm1/beta:0"3*?
&transformer/block0/norm1/beta/part_0:0
198.18.7.12:CPU:0*?
&transformer/block0/norm1/beta/part_1:0
198.18.7.12:CPU:0*?
&transformer/block0/norm1/beta/part_2:0
198.18.7.12:CPU:0é
transformer/block0/ff1/kernel:0"3,1*?
&transformer/block0/ff1/kernel/part_0:0
198.18.7.12:CPU:0*?
&transformer/block0/ff1/kernel/part_1:0
198.18.7.12:CPU:0*?
&transformer/block0/ff1/kernel/part_2:0
198.18.7.12:CPU:0ß
transformer/block0/ff1/bias:0"3*=
$transformer/block0/ff1/bias/part_0:0
198.18.7.12:CPU:0*=
$transformer/block0/ff1/bias/part_1:0
198.18.7.12:CPU:0*=
$transformer/block0/ff1/bias/part_2:0
198.18.7.12:CPU:0é
transformer/block0/ff2/kernel:0"3,1*?
&transformer/block0/ff2/kernel/part_0:0
198.18.7.12:CPU:0*?
&transformer/block0/ff2/kernel/part_1:0
198.18.7.12:CPU:0*?
&transformer/block0/ff2/kernel/part_2:0
198.18.7.12:CPU:0ß
transformer/block0/ff2/bias:0"3*=
$transformer/block0/ff2/bias/part_0:0
198.18.7.12:CPU:0*=
$transformer/block0/ff2/bias/part_1:0
198.18.7.12:CPU:0*=
$transformer/block0/ff2/bias/part_2:0
198.18.7.12:CPU:0ë
 transformer/block0/norm2/gamma:0"3*@
'transformer/block0/norm2/gamma/part_0:0
198.18.7.12:CPU:0*@
'transformer/block0/norm2/gamma/part_1:0
198.18.7.12:CPU:0*@
'transformer/block0/norm2/gamma/part_2:0
198.18.7.12:CPU:0ç
transformer/block0/norm2/beta:0"3*?
&transformer/block0/norm2/beta/part_0:0
198.18.7.12:CPU:0*?
&transformer/block0/norm2/beta/part_1:0
198.18.7.12:CPU:0*?
&transformer/block0/norm2/beta/part_2:0
198.18.7.12:CPU:0›
+transformer/block1/attention/query/kernel:0"3,1,1*K
2transformer/block1/attention/query/kernel/part_0:0
198.18.7.12:CPU:0*K
2transformer/block1/attention/query/kernel/part_1:0
198.18.7.12:CPU:0*K
2transformer/block1/attention/query/kernel/part_2:0
198.18.7.12:CPU:0‘
)transformer/block1/attention/query/bias:0"3,1*I
0transformer/block1/attention/query/bias/part_0:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/query/bias/part_1:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/query/bias/part_2:0
198.18.7.12:CPU:0“
)transformer/block1/attention/key/kernel:0"3,1,1*I
0transformer/block1/attention/key/kernel/part_0:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/key/kernel/part_1:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/key/kernel/part_2:0
198.18.7.12:CPU:0‰
'transformer/block1/attention/key/bias:0"3,1*G
.transformer/block1/attention/key/bias/part_0:0
198.18.7.12:CPU:0*G
.transformer/block1/attention/key/bias/part_1:0
198.18.7.12:CPU:0*G
.transformer/block1/attention/key/bias/part_2:0
198.18.7.12:CPU:0›
+transformer/block1/attention/value/kernel:0"3,1,1*K
2transformer/block1/attention/value/kernel/part_0:0
198.18.7.12:CPU:0*K
2transformer/block1/attention/value/kernel/part_1:0
198.18.7.12:CPU:0*K
2transformer/block1/attention/value/kernel/part_2:0
198.18.7.12:CPU:0‘
)transformer/block1/attention/value/bias:0"3,1*I
0transformer/block1/attention/value/bias/part_0:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/value/bias/part_1:0
198.18.7.12:CPU:0*I
0transformer/block1/attention/value/bias/part_2:0
198.18.7.12:CPU:0Ç
6transformer/block1/attention/attention_output/kernel:0"3,1,1*V
=transformer/block1/attention/attention_output/kernel/part_0:0
198.18.7.12:CPU:0*V
=transformer/block1/attention/attention_output/kernel/part_1:0
198.18.7.12:CPU:0*V
=transformer/block1/attention/attention_output/kernel/part_2:0
198.18.7.12:CPU:0»
4transformer/block1/attention/attention_output/bias:0"3*T
;transformer/block1/attention/attention_output/bias/part_0:0
198.18.7.12:CPU:0*T
;transformer/block1/attention/attention_output/bias/part_1:0
198.18.7.12:CPU:0*T
;transformer/block1/attention/attention_output/bias/part_2:0
198.18.7.12:CPU:0ë
 transformer/block1/norm1/gamma:0"3*@
'transformer/block1/norm1/gamma/part_0:0
198.18.7.12:CPU:0*@
'transformer/block1/norm1/gamma/part_1:0
198.18.7.12:CPU:0*@
'transformer/block1/norm1/gamma/part_2:0
198.18.7.12:CPU:0ç
transformer/block1/norm1/beta:0"3*?
&transformer/block1/norm1/beta/part_0:0
198.18.7.12:CPU:0*?
&transformer/block1/norm1/beta/part_1:0
198.18.7.12:CPU:0*?
&transformer/block1/norm1/beta/part_2:0
198.18.7.12:CPU:0é
transformer/block1/ff1/kernel:0"3,1*?
&transformer/block1/ff1/kernel/part_0:0
198.18.7.12:CPU:0*?
&transformer/block1/ff1/kernel/part_1:0
198.18.7.12:CPU:0*?
&transformer/block1/ff1/kernel/part_2:0
198.18.7.12:CPU:0ß
transformer/block1/ff1/bias:0"3*=
$transformer/block1/ff1/bias/part_0:0
198.18.7.12:CPU:0*=
$transformer/block1/ff1/bias/part_1:0
198.18.7.12:CPU:0*=
$transformer/block1/ff1/bias/part_2:0
198.18.7.12:CPU:0é
transformer/block1/ff2/kernel:0"3,1*?
&transformer/block1/ff2/kernel/part_0:0
198.18.7.12:CPU:0*?
&transformer/block1/ff2/kernel/part_1:0
198.18.7.12:CPU:0*?
&transformer/block1/ff2/kernel/part_2:0
198.18.7.12:CPU:0ß
transformer/block1/ff2/bias:0"3*=
$transformer/block1/ff2/bias/part_0:0
198.18.7.12:CPU:0*=
$transformer/block1/ff2/bias/part_1:0
198.18.7.12:CPU:0*=
$transformer/block1/ff2/bias/part_2:0
198.18.7.12:CPU:0ë
 transformer/block1/norm2/gamma:0"3*@
'transformer/block1/norm2/gamma/part_0:0
198.18.7.12:CPU:0*@
'transformer/block1/norm2/gamma/part_1:0
198.18.7.12:CPU:0*@
'transformer/block1/norm2/gamma/part_2:0
198.18.7.12:CPU:0ç
transformer/block1/norm2/beta:0"3*?
&transformer/block1/norm2/beta/part_0:0
198.18.7.12:CPU:0*?
&transformer/block1/norm2/beta/part_1:0
198.18.7.12:CPU:0*?
&transformer/block1/norm2/beta/part_2:0
198.18.7.12:CPU:0Ñ
transformer/head/kernel:0"3,1*9
 transformer/head/kernel/part_0:0
198.18.7.12:CPU:0*9
 transformer/head/kernel/part_1:0
198.18.7.12:CPU:0*9
 transformer/head/kernel/part_2:0
198.18.7.12:CPU:0Ç
transformer/head/bias:0"3*7
transformer/head/bias/part_0:0
198.18.7.12:CPU:0*7
transformer/head/bias/part_1:0
198.18.7.12:CPU:0*7
transformer/head/bias/part_2:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search