
search-fd33e674c2ef†
transformer/positions:0"8,1*+
transformer/positions/part_0:0	€*+
transformer/positions/part_1:0	€*+
transformer/positions/part_2:0	€*+
transformer/positions/part_3:0	€*+
transformer/positions/part_4:0	€*+
transformer/positions/part_5:0	€*+
transformer/positions/part_6:0	€*+
transformer/positions/part_7:0	€,
transformer/tokens/embeddings:0	€¼
+transformer/block0/attention/query/kernel:0"8,1,1*?
2transformer/block0/attention/query/kernel/part_0:0	€*?
2transformer/block0/attention/query/kernel/part_1:0	€*?
2transformer/block0/attention/query/kernel/part_2:0	€*?
2transformer/block0/attention/query/kernel/part_3:0	€*?
2transformer/block0/attention/query/kernel/part_4:0	€*?
2transformer/block0/attention/query/kernel/part_5:0	€*?
2transformer/block0/attention/query/kernel/part_6:0	€*?
2transformer/block0/attention/query/kernel/part_7:0	€¬
)transformer/block0/attention/query/bias:0"4,1*=
0transformer/block0/attention/query/bias/part_0:0	€*=
0transformer/block0/attention/query/bias/part_1:0	€*=
0transformer/block0/attention/query/bias/part_2:0	€*=
0transformer/block0/attention/query/bias/part_3:0	€ª
)transformer/block0/attention/key/kernel:0"8,1,1*=
0transformer/block0/attention/key/kernel/part_0:0	€*=
0transformer/block0/attention/key/kernel/part_1:0	€*=
0transformer/block0/attention/key/kernel/part_2:0	€*=
0transformer/block0/attention/key/kernel/part_3:0	€*=
0transformer/block0/attention/key/kernel/part_4:0	€*=
0transformer/block0/attention/key/kernel/part_5:0	€*=
0transformer/block0/attention/key/kernel/part_6:0	€*=
0transformer/block0/attention/key/kernel/part_7:0	€¢
'transformer/block0/attention/key/bias:0"4,1*;
.transformer/block0/attention/key/bias/part_0:0	€*;
.transformer/block0/attention/key/bias/part_1:0	€*;
.transformer/block0/attention/key/bias/part_2:0	€*;
.transformer/block0/attention/key/bias/part_3:0	€¼
+transformer/block0/attention/value/kernel:0"8,1,1*?
2transformer/block0/attention/value/kernel/part_0:0	€*?
2transformer/block0/attention/value/kernel/part_1:0	€*?
2transformer/block0/attention/value/kernel/part_2:0	€*?
2transformer/block0/attention/value/kernel/part_3:0	€*?
2transformer/block0/attention/value/kernel/part_4:0	€*?
2transformer/block0/attention/value/kernel/part_5:0	€*?
2transformer/block0/attention/value/kernel/part_6:0	€*?
2transformer/block0/attention/value/kernel/part_7:0	€¬
)transformer/block0/attention/value/bias:0"4,1*=
0transformer/block0/attention/value/bias/part_0:0	€*=
0transformer/block0/attention/value/bias/part_1:0	€*=
0transformer/block0/attention/value/bias/part_2:0	€*=
0transformer/block0/attention/value/bias/part_3:0	€ï
6transformer/block0/attention/attention_output/kernel:0"4,1,1*J
=transformer/block0/attention/attention_output/kernel/part_0:0	€*J
=transformer/block0/attention/attention_output/kernel/part_1:0	€*J
=transformer/block0/attention/attention_output/kernel/part_2:0	€*J
=transformer/block0/attention/attention_output/kernel/part_3:0	€‰
4transformer/block0/attention/attention_output/bias:0"8*H
;transformer/block0/attention/attention_output/bias/part_0:0	€*H
;transformer/block0/attention/attention_output/bias/part_1:0	€*H
;transformer/block0/attention/attention_output/bias/part_2:0	€*H
;transformer/block0/attention/attention_output/bias/part_3:0	€*H
;transformer/block0/attention/attention_output/bias/part_4:0	€*H
;transformer/block0/attention/attention_output/bias/part_5:0	€*H
;transformer/block0/attention/attention_output/bias/part_6:0	€*H
;transformer/block0/attention/attention_output/bias/part_7:0	€Õ
 transformer/block0/norm1/gamma:0"8*4
'transformer/block0/norm1/gamma/part_0:0	€*4
'transformer/block0/norm1/gamma/part_1:0	€*4
'transformer/block0/norm1/gamma/part_2:0	€*4
'transformer/block0/norm1/gamma/part_3:0	€*4
'transformer/block0/norm1/gamma/part_4:0	€*4
'transformer/block0/norm1/gamma/part_5:0	€*4
'transformer/block0/norm1/gamma/part_6:0	€*4
'transformer/block0/norm1/gamma/part_7:0	€Ì
transformer/block0/norm1/beta:0"8*3
&transformer/block0/norm1/beta/part_0:0	€*3
&transformer/block0/norm1/beta/part_1:0	€*3
&transformer/block0/norm1/beta/part_2:0	€*3
&transformer/block0/norm1/beta/part_3:0	€*3
&transformer/block0/norm1/beta/part_4:0	€*3
&transformer/block0/norm1/beta/part_5:0	€*3
&transformer/block0/norm1/beta/part_6:0	€*3
&transformer/block0/norm1/beta/part_7:0	€Î
transformer/block0/ff1/kernel:0"8,1*3
&transformer/block0/ff1/kernel/part_0:0	€*3
&transformer/block0/ff1/kernel/part_1:0	€*3
&transformer/block0/ff1/kernel/part_2:0	€*3
&transformer/block0/ff1/kernel/part_3:0	€*3
&transformer/block0/ff1/kernel/part_4:0	€*3
&transformer/block0/ff1/kernel/part_5:0	€*3
&transformer/block0/ff1/kernel/part_6:0	€*3
&transformer/block0/ff1/kernel/part_7:0	€º
transformer/block0/ff1/bias:0"8*1
$transformer/block0/ff1/bias/part_0:0	€*1
$transformer/block0/ff1/bias/part_1:0	€*1
$transformer/block0/ff1/bias/part_2:0	€*1
$transformer/block0/ff1/bias/part_3:0	€*1
$transformer/block0/ff1/bias/part_4:0	€*1
$transformer/block0/ff1/bias/part_5:0	€*1
$transformer/block0/ff1/bias/part_6:0	€*1
$transformer/block0/ff1/bias/part_7:0	€Î
transformer/block0/ff2/kernel:0"8,1*3
&transformer/block0/ff2/kernel/part_0:0	€*3
&transformer/block0/ff2/kernel/part_1:0	€*3
&transformer/block0/ff2/kernel/part_2:0	€*3
&transformer/block0/ff2/kernel/part_3:0	€*3
&transformer/block0/ff2/kernel/part_4:0	€*3
&transformer/block0/ff2/kernel/part_5:0	€*3
&transformer/block0/ff2/kernel/part_6:0	€*3
&transformer/block0/ff2/kernel/part_7:0	€º
transformer/block0/ff2/bias:0"8*1
$transformer/block0/ff2/bias/part_0:0	€*1
$transformer/block0/ff2/bias/part_1:0	€*1
$transformer/block0/ff2/bias/part_2:0	€*1
$transformer/block0/ff2/bias/part_3:0	€*1
$transformer/block0/ff2/bias/part_4:0	€*1
$transformer/block0/ff2/bias/part_5:0	€*1
$transformer/block0/ff2/bias/part_6:0	€*1
$transformer/block0/ff2/bias/part_7:0	€Õ
 transformer/block0/norm2/gamma:0"8*4
'transformer/block0/norm2/gamma/part_0:0	€*4
'transformer/block0/norm2/gamma/part_1:0	€*4
'transformer/block0/norm2/gamma/part_2:0	€*4
'transformer/block0/norm2/gamma/part_3:0	€*4
'transformer/block0/norm2/gamma/part_4:0	€*4
'transformer/block0/norm2/gamma/part_5:0	€*4
'transformer/block0/norm2/gamma/part_6:0	€*4
'transformer/block0/norm2/gamma/part_7:0	€Ì
transformer/block0/norm2/beta:0"8*3
&transformer/block0/norm2/beta/part_0:0	€*3
&transformer/block0/norm2/beta/part_1:0	€*3
&transformer/block0/norm2/beta/part_2:0	€*3
&transformer/block0/norm2/beta/part_3:0	€*3
&transformer/block0/norm2/beta/part_4:0	€*3
&transformer/block0/norm2/beta/part_5:0	€*3
&transformer/block0/norm2/beta/part_6:0	€*3
&transformer/block0/norm2/beta/part_7:0	€¼
+transformer/block1/attention/query/kernel:0"8,1,1*?
2transformer/block1/attention/query/kernel/part_0:0	€*?
2transformer/block1/attention/query/kernel/part_1:0	€*?
2transformer/block1/attention/query/kernel/part_2:0	€*?
2transformer/block1/attention/query/kernel/part_3:0	€*?
2transformer/block1/attention/query/kernel/part_4:0	€*?
2transformer/block1/attention/query/kernel/part_5:0	€*?
2transformer/block1/attention/query/kernel/part_6:0	€*?
2transformer/block1/attention/query/kernel/part_7:0	€¬
)transformer/block1/attention/query/bias:0"4,1*=
0transformer/block1/attention/query/bias/part_0:0	€*=
0transformer/block1/attention/query/bias/part_1:0	€*=
0transformer/block1/attention/query/bias/part_2:0	€*=
0transformer/block1/attention/query/bias/part_3:0	€ª
)transformer/block1/attention/key/kernel:0"8,1,1*=
0transformer/block1/attention/key/kernel/part_0:0	€*=
0transformer/block1/attention/key/kernel/part_1:0	€*=
0transformer/block1/attention/key/kernel/part_2:0	€*=
0transformer/block1/attention/key/kernel/part_3:0	€*=
0transformer/block1/attention/key/kernel/part_4:0	€*=
0transformer/block1/attention/key/kernel/part_5:0	€*=
0transformer/block1/attention/key/kernel/part_6:0	€*=
0transformer/block1/attention/key/kernel/part_7:0	€¢
'transformer/block1/attention/key/bias:0"4,1*;
.transformer/block1/attention/key/bias/part_0:0	€*;
.transformer/block1/attention/key/bias/part_1:0	€*;
.transformer/block1/attention/key/bias/part_2:0	€*;
.transformer/block1/attention/key/bias/part_3:0	€¼
+transformer/block1/attention/value/kernel:0"8,1,1*?
2transformer/block1/attention/value/kernel/part_0:0	€*?
2transformer/block1/attention/value/kernel/part_1:0	€*?
2transformer/block1/attention/value/kernel/part_2:0	€*?
2transformer/block1/attention/value/kernel/part_3:0	€*?
2transformer/block1/attention/value/kernel/part_4:0	€*?
2transformer/block1/attention/value/kernel/part_5:0	€*?
2transformer/block1/attention/value/kernel/part_6:0	€*?
2transformer/block1/attention/value/kernel/part_7:0	€¬
)transformer/block1/attention/value/bias:0"4,1*=
0transformer/block1/attention/value/bias/part_0:0	€*=
0transformer/block1/attention/value/bias/part_1:0	€*=
0transformer/block1/attention/value/bias/part_2:0	€*=
0transformer/block1/attention/value/bias/part_3:0	€ï
6transformer/block1/attention/attention_output/kernel:0"4,1,1*J
=transformer/block1/attention/attention_output/kernel/part_0:0	€*J
=transformer/block1/attention/attention_output/kernel/part_1:0	€*J
=transformer/block1/attention/attention_output/kernel/part_2:0	€*J
=transformer/block1/attention/attention_output/kernel/part_3:0	€‰
4transformer/block1/attention/attention_output/bias:0"8*H
;transformer/block1/attention/attention_output/bias/part_0:0	€*H
;transformer/block1/attention/attention_output/bias/part_1:0	€*H
;transformer/block1/attention/attention_output/bias/part_2:0	€*H
;transformer/block1/attention/attention_output/bias/part_3:0	€*H
;transformer/block1/attention/attention_output/bias/part_4:0	€*H
;transformer/block1/attention/attention_output/bias/part_5:0	€*H
;transformer/block1/attention/attention_output/bias/part_6:0	€*H
;transformer/block1/attention/attention_output/bias/part_7:0	€Õ
 transformer/block1/norm1/gamma:0"8*4
'transformer/block1/norm1/gamma/part_0:0	€*4
'transformer/block1/norm1/gamma/part_1:0	€*4
'transformer/block1/norm1/gamma/part_2:0	€*4
'transformer/block1/norm1/gamma/part_3:0	€*4
'transformer/block1/norm1/gamma/part_4:0	€*4
'transformer/block1/norm1/gamma/part_5:0	€*4
'transformer/block1/norm1/gamma/part_6:0	€*4
'transformer/block1/norm1/gamma/part_7:0	€Ì
transformer/block1/norm1/beta:0"8*3
&transformer/block1/norm1/beta/part_0:0	€*3
&transformer/block1/norm1/beta/part_1:0	€*3
&transformer/block1/norm1/beta/part_2:0	€*3
&transformer/block1/norm1/beta/part_3:0	€*3
&transformer/block1/norm1/beta/part_4:0	€*3
&transformer/block1/norm1/beta/part_5:0	€*3
&transformer/block1/norm1/beta/part_6:0	€*3
&transformer/block1/norm1/beta/part_7:0	€Î
transformer/block1/ff1/kernel:0"8,1*3
&transformer/block1/ff1/kernel/part_0:0	€*3
&transformer/block1/ff1/kernel/part_1:0	€*3
&transformer/block1/ff1/kernel/part_2:0	€*3
&transformer/block1/ff1/kernel/part_3:0	€*3
&transformer/block1/ff1/kernel/part_4:0	€*3
&transformer/block1/ff1/kernel/part_5:0	€*3
&transformer/block1/ff1/kernel/part_6:0	€*3
&transformer/block1/ff1/kernel/part_7:0	€º
transformer/block1/ff1/bias:0"8*1
$transformer/block1/ff1/bias/part_0:0	€*1
$transformer/block1/ff1/bias/part_1:0	€*1
$transformer/block1/ff1/bias/part_2:0	€*1
$transformer/block1/ff1/bias/part_3:0	€*1
$transformer/block1/ff1/bias/part_4:0	€*1
$transformer/block1/ff1/bias/part_5:0	€*1
$transformer/block1/ff1/bias/part_6:0	€*1
$transformer/block1/ff1/bias/part_7:0	€Î
transformer/block1/ff2/kernel:0"8,1*3
&transformer/block1/ff2/kernel/part_0:0	€*3
&transformer/block1/ff2/kernel/part_1:0	€*3
&transformer/block1/ff2/kernel/part_2:0	€*3
&transformer/block1/ff2/kernel/part_3:0	€*3
&transformer/block1/ff2/kernel/part_4:0	€*3
&transformer/block1/ff2/kernel/part_5:0	€*3
&transformer/block1/ff2/kernel/part_6:0	€*3
&transformer/block1/ff2/kernel/part_7:0	€º
transformer/block1/ff2/bias:0"8*1
$transformer/block1/ff2/bias/part_0:0	€*1
$transformer/block1/ff2/bias/part_1:0	€*1
$transformer/block1/ff2/bias/part_2:0	€*1
$transformer/block1/ff2/bias/part_3:0	€*1
$transformer/block1/ff2/bias/part_4:0	€*1
$transformer/block1/ff2/bias/part_5:0	€*1
$transformer/block1/ff2/bias/part_6:0	€*1
$transformer/block1/ff2/bias/part_7:0	€Õ
 transformer/block1/norm2/gamma:0"8*4
'transformer/block1/norm2/gamma/part_0:0	€*4
'transformer/block1/norm2/gamma/part_1:0	€*4
'transformer/block1/norm2/gamma/part_2:0	€*4
'transformer/block1/norm2/gamma/part_3:0	€*4
'transformer/block1/norm2/gamma/part_4:0	€*4
'transformer/block1/norm2/gamma/part_5:0	€*4
'transformer/block1/norm2/gamma/part_6:0	€*4
'transformer/block1/norm2/gamma/part_7:0	€Ì
transformer/block1/norm2/beta:0"8*3
&transformer/block1/norm2/beta/part_0:0	€*3
&transformer/block1/norm2/beta/part_1:0	€*3
&transformer/block1/norm2/beta/part_2:0	€*3
&transformer/block1/norm2/beta/part_3:0	€*3
&transformer/block1/norm2/beta/part_4:0	€*3
&transformer/block1/norm2/beta/part_5:0	€*3
&transformer/block1/norm2/beta/part_6:0	€*3
&transformer/block1/norm2/beta/part_7:0	€˜
transformer/head/kernel:0"8,1*-
 transformer/head/kernel/part_0:0	€*-
 transformer/head/kernel/part_1:0	€*-
 transformer/head/kernel/part_2:0	€*-
 transformer/head/kernel/part_3:0	€*-
 transformer/head/kernel/part_4:0	€*-
 transformer/head/kernel/part_5:0	€*-
 transformer/head/kernel/part_6:0	€*-
 transformer/head/kernel/part_7:0	€Ð
transformer/head/bias:0"4*+
transformer/head/bias/part_0:0	€*+
transformer/head/bias/part_1:0	€*+
transformer/head/bias/part_2:0	€*+
transformer/head/bias/part_3:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search