
search-52e94d9057c7x
transformer/positions:0"2,1*+
transformer/positions/part_0:0	Ä*+
transformer/positions/part_1:0	Äæ
transformer/tokens/embeddings:0"8,1*A
&transformer/tokens/embeddings/part_0:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_1:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_2:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_3:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_4:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_5:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_6:0
198.18.7.13:CPU:0*A
&transformer/tokens/embeddings/part_7:0
198.18.7.13:CPU:0∂
+transformer/block0/attention/query/kernel:0"2,1,1*?
2transformer/block0/attention/query/kernel/part_0:0	Ä*?
2transformer/block0/attention/query/kernel/part_1:0	ÄÆ
)transformer/block0/attention/query/bias:0"2,1*=
0transformer/block0/attention/query/bias/part_0:0	Ä*=
0transformer/block0/attention/query/bias/part_1:0	Ä∞
)transformer/block0/attention/key/kernel:0"2,1,1*=
0transformer/block0/attention/key/kernel/part_0:0	Ä*=
0transformer/block0/attention/key/kernel/part_1:0	Ä®
'transformer/block0/attention/key/bias:0"2,1*;
.transformer/block0/attention/key/bias/part_0:0	Ä*;
.transformer/block0/attention/key/bias/part_1:0	Ä∂
+transformer/block0/attention/value/kernel:0"2,1,1*?
2transformer/block0/attention/value/kernel/part_0:0	Ä*?
2transformer/block0/attention/value/kernel/part_1:0	ÄÆ
)transformer/block0/attention/value/bias:0"2,1*=
0transformer/block0/attention/value/bias/part_0:0	Ä*=
0transformer/block0/attention/value/bias/part_1:0	Ä◊
6transformer/block0/attention/attention_output/kernel:0"2,1,1*J
=transformer/block0/attention/attention_output/kernel/part_0:0	Ä*J
=transformer/block0/attention/attention_output/kernel/part_1:0	ÄÕ
4transformer/block0/attention/attention_output/bias:0"2*H
;transformer/block0/attention/attention_output/bias/part_0:0	Ä*H
;transformer/block0/attention/attention_output/bias/part_1:0	Äë
 transformer/block0/norm1/gamma:0"2*4
'transformer/block0/norm1/gamma/part_0:0	Ä*4
'transformer/block0/norm1/gamma/part_1:0	Äé
transformer/block0/norm1/beta:0"2*3
&transformer/block0/norm1/beta/part_0:0	Ä*3
&transformer/block0/norm1/beta/part_1:0	Äê
transformer/block0/ff1/kernel:0"2,1*3
&transformer/block0/ff1/kernel/part_0:0	Ä*3
&transformer/block0/ff1/kernel/part_1:0	Äà
transformer/block0/ff1/bias:0"2*1
$transformer/block0/ff1/bias/part_0:0	Ä*1
$transformer/block0/ff1/bias/part_1:0	Äê
transformer/block0/ff2/kernel:0"2,1*3
&transformer/block0/ff2/kernel/part_0:0	Ä*3
&transformer/block0/ff2/kernel/part_1:0	Äà
transformer/block0/ff2/bias:0"2*1
$transformer/block0/ff2/bias/part_0:0	Ä*1
$transformer/block0/ff2/bias/part_1:0	Äë
 transformer/block0/norm2/gamma:0"2*4
'transformer/block0/norm2/gamma/part_0:0	Ä*4
'transformer/block0/norm2/gamma/part_1:0	Äé
transformer/block0/norm2/beta:0"2*3
&transformer/block0/norm2/beta/part_0:0	Ä*3
&transformer/block0/norm2/beta/part_1:0	Ä∂
+transformer/block1/attention/query/kernel:0"2,1,1*?
2transformer/block1/attention/query/kernel/part_0:0	Ä*?
2transformer/block1/attention/query/kernel/part_1:0	ÄÆ
)transformer/block1/attention/query/bias:0"2,1*=
0transformer/block1/attention/query/bias/part_0:0	Ä*=
0transformer/block1/attention/query/bias/part_1:0	Ä∞
)transformer/block1/attention/key/kernel:0"2,1,1*=
0transformer/block1/attention/key/kernel/part_0:0	Ä*=
0transformer/block1/attention/key/kernel/part_1:0	Ä®
'transformer/block1/attention/key/bias:0"2,1*;
.transformer/block1/attention/key/bias/part_0:0	Ä*;
.transformer/block1/attention/key/bias/part_1:0	Ä∂
+transformer/block1/attention/value/kernel:0"2,1,1*?
2transformer/block1/attention/value/kernel/part_0:0	Ä*?
2transformer/block1/attention/value/kernel/part_1:0	ÄÆ
)transformer/block1/attention/value/bias:0"2,1*=
0transformer/block1/attention/value/bias/part_0:0	Ä*=
0transformer/block1/attention/value/bias/part_1:0	Ä◊
6transformer/block1/attention/attention_output/kernel:0"2,1,1*J
=transformer/block1/attention/attention_output/kernel/part_0:0	Ä*J
=transformer/block1/attention/attention_output/kernel/part_1:0	ÄÕ
4transformer/block1/attention/attention_output/bias:0"2*H
;transformer/block1/attention/attention_output/bias/part_0:0	Ä*H
;transformer/block1/attention/attention_output/bias/part_1:0	Äë
 transformer/block1/norm1/gamma:0"2*4
'transformer/block1/norm1/gamma/part_0:0	Ä*4
'transformer/block1/norm1/gamma/part_1:0	Äé
transformer/block1/norm1/beta:0"2*3
&transformer/block1/norm1/beta/part_0:0	Ä*3
&transformer/block1/norm1/beta/part_1:0	Äê
transformer/block1/ff1/kernel:0"2,1*3
&transformer/block1/ff1/kernel/part_0:0	Ä*3
&transformer/block1/ff1/kernel/part_1:0	Äà
transformer/block1/ff1/bias:0"2*1
$transformer/block1/ff1/bias/part_0:0	Ä*1
$transformer/block1/ff1/bias/part_1:0	Äê
transformer/block1/ff2/kernel:0"2,1*3
&transformer/block1/ff2/kernel/part_0:0	Ä*3
&transformer/block1/ff2/kernel/part_1:0	Äà
transformer/block1/ff2/bias:0"2*1
$transformer/block1/ff2/bias/part_0:0	Ä*1
$transformer/block1/ff2/bias/part_1:0	Äë
 transformer/block1/norm2/gamma:0"2*4
'transformer/block1/norm2/gamma/part_0:0	Ä*4
'transformer/block1/norm2/gamma/part_1:0	Äé
transformer/block1/norm2/beta:0"2*3
&transformer/block1/norm2/beta/part_0:0	Ä*3
&transformer/block1/norm2/beta/part_1:0	Ä~
transformer/head/kernel:0"2,1*-
 transformer/head/kernel/part_0:0	Ä*-
 transformer/head/kernel/part_1:0	Äv
transformer/head/bias:0"2*+
transformer/head/bias/part_0:0	Ä*+
transformer/head/bias/part_1:0	Ä"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0Ç"search