
search-b5411d0520fcj
transformer/positions:0"2,1*$
transformer/positions/part_0:0*$
transformer/positions/part_1:0æ
transformer/tokens/embeddings:0"4,1*.
&transformer/tokens/embeddings/part_0:0*.
&transformer/tokens/embeddings/part_1:0*.
&transformer/tokens/embeddings/part_2:0*.
&transformer/tokens/embeddings/part_3:0¨
+transformer/block0/attention/query/kernel:0"2,1,1*8
2transformer/block0/attention/query/kernel/part_0:0*8
2transformer/block0/attention/query/kernel/part_1:0 
)transformer/block0/attention/query/bias:0"2,1*6
0transformer/block0/attention/query/bias/part_0:0*6
0transformer/block0/attention/query/bias/part_1:0¢
)transformer/block0/attention/key/kernel:0"2,1,1*6
0transformer/block0/attention/key/kernel/part_0:0*6
0transformer/block0/attention/key/kernel/part_1:0š
'transformer/block0/attention/key/bias:0"2,1*4
.transformer/block0/attention/key/bias/part_0:0*4
.transformer/block0/attention/key/bias/part_1:0¨
+transformer/block0/attention/value/kernel:0"2,1,1*8
2transformer/block0/attention/value/kernel/part_0:0*8
2transformer/block0/attention/value/kernel/part_1:0 
)transformer/block0/attention/value/bias:0"2,1*6
0transformer/block0/attention/value/bias/part_0:0*6
0transformer/block0/attention/value/bias/part_1:0É
6transformer/block0/attention/attention_output/kernel:0"2,1,1*C
=transformer/block0/attention/attention_output/kernel/part_0:0*C
=transformer/block0/attention/attention_output/kernel/part_1:0¿
4transformer/block0/attention/attention_output/bias:0"2*A
;transformer/block0/attention/attention_output/bias/part_0:0*A
;transformer/block0/attention/attention_output/bias/part_1:0ƒ
 transformer/block0/norm1/gamma:0"2*-
'transformer/block0/norm1/gamma/part_0:0*-
'transformer/block0/norm1/gamma/part_1:0€
transformer/block0/norm1/beta:0"2*,
&transformer/block0/norm1/beta/part_0:0*,
&transformer/block0/norm1/beta/part_1:0‚
transformer/block0/ff1/kernel:0"2,1*,
&transformer/block0/ff1/kernel/part_0:0*,
&transformer/block0/ff1/kernel/part_1:0z
transformer/block0/ff1/bias:0"2**
$transformer/block0/ff1/bias/part_0:0**
$transformer/block0/ff1/bias/part_1:0‚
transformer/block0/ff2/kernel:0"2,1*,
&transformer/block0/ff2/kernel/part_0:0*,
&transformer/block0/ff2/kernel/part_1:0z
transformer/block0/ff2/bias:0"2**
$transformer/block0/ff2/bias/part_0:0**
$transformer/block0/ff2/bias/part_1:0ƒ
 transformer/block0/norm2/gamma:0"2*-
'transformer/block0/norm2/gamma/part_0:0*-
'transformer/block0/norm2/gamma/part_1:0€
transformer/block0/norm2/beta:0"2*,
&transformer/block0/norm2/beta/part_0:0*,
&transformer/block0/norm2/beta/part_1:0¨
+transformer/block1/attention/query/kernel:0"2,1,1*8
2transformer/block1/attention/query/kernel/part_0:0*8
2transformer/block1/attention/query/kernel/part_1:0 
)transformer/block1/attention/query/bias:0"2,1*6
0transformer/block1/attention/query/bias/part_0:0*6
0transformer/block1/attention/query/bias/part_1:0¢
)transformer/block1/attention/key/kernel:0"2,1,1*6
0transformer/block1/attention/key/kernel/part_0:0*6
0transformer/block1/attention/key/kernel/part_1:0š
'transformer/block1/attention/key/bias:0"2,1*4
.transformer/block1/attention/key/bias/part_0:0*4
.transformer/block1/attention/key/bias/part_1:0¨
+transformer/block1/attention/value/kernel:0"2,1,1*8
2transformer/block1/attention/value/kernel/part_0:0*8
2transformer/block1/attention/value/kernel/part_1:0 
)transformer/block1/attention/value/bias:0"2,1*6
0transformer/block1/attention/value/bias/part_0:0*6
0transformer/block1/attention/value/bias/part_1:0É
6transformer/block1/attention/attention_output/kernel:0"2,1,1*C
=transformer/block1/attention/attention_output/kernel/part_0:0*C
=transformer/block1/attention/attention_output/kernel/part_1:0¿
4transformer/block1/attention/attention_output/bias:0"2*A
;transformer/block1/attention/attention_output/bias/part_0:0*A
;transformer/block1/attention/attention_output/bias/part_1:0ƒ
 transformer/block1/norm1/gamma:0"2*-
'transformer/block1/norm1/gamma/part_0:0*-
'transformer/block1/norm1/gamma/part_1:0€
transformer/block1/norm1/beta:0"2*,
&transformer/block1/norm1/beta/part_0:0*,
&transformer/block1/norm1/beta/part_1:0‚
transformer/block1/ff1/kernel:0"2,1*,
&transformer/block1/ff1/kernel/part_0:0*,
&transformer/block1/ff1/kernel/part_1:0z
transformer/block1/ff1/bias:0"2**
$transformer/block1/ff1/bias/part_0:0**
$transformer/block1/ff1/bias/part_1:0‚
transformer/block1/ff2/kernel:0"2,1*,
&transformer/block1/ff2/kernel/part_0:0*,
&transformer/block1/ff2/kernel/part_1:0z
transformer/block1/ff2/bias:0"2**
$transformer/block1/ff2/bias/part_0:0**
$transformer/block1/ff2/bias/part_1:0ƒ
 transformer/block1/norm2/gamma:0"2*-
'transformer/block1/norm2/gamma/part_0:0*-
'transformer/block1/norm2/gamma/part_1:0€
transformer/block1/norm2/beta:0"2*,
&transformer/block1/norm2/beta/part_0:0*,
&transformer/block1/norm2/beta/part_1:0p
transformer/head/kernel:0"2,1*&
 transformer/head/kernel/part_0:0*&
 transformer/head/kernel/part_1:0h
transformer/head/bias:0"2*$
transformer/head/bias/part_0:0*$
transformer/head/bias/part_1:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search