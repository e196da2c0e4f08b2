
search-832ce356b942õ
transformer/positions:0"16,1*+
transformer/positions/part_0:0	€*+
transformer/positions/part_1:0	€*+
transformer/positions/part_2:0	€*+
transformer/positions/part_3:0	€*+
transformer/positions/part_4:0	€*+
transformer/positions/part_5:0	€*+
transformer/positions/part_6:0	€*+
transformer/positions/part_7:0	€*+
transformer/positions/part_8:0	€*+
transformer/positions/part_9:0	€*,
transformer/positions/part_10:0	€*,
transformer/positions/part_11:0	€*,
transformer/positions/part_12:0	€*,
transformer/positions/part_13:0	€*,
transformer/positions/part_14:0	€*,
transformer/positions/part_15:0	€ï
transformer/tokens/embeddings:0"3,1*A
&transformer/tokens/embeddings/part_0:0
198.18.7.12:CPU:0*A
&transformer/tokens/embeddings/part_1:0
198.18.7.12:CPU:0*A
&transformer/tokens/embeddings/part_2:0
198.18.7.12:CPU:0Ë
+transformer/block0/attention/query/kernel:0"16,1,1*?
2transformer/block0/attention/query/kernel/part_0:0	€*?
2transformer/block0/attention/query/kernel/part_1:0	€*?
2transformer/block0/attention/query/kernel/part_2:0	€*?
2transformer/block0/attention/query/kernel/part_3:0	€*?
2transformer/block0/attention/query/kernel/part_4:0	€*?
2transformer/block0/attention/query/kernel/part_5:0	€*?
2transformer/block0/attention/query/kernel/part_6:0	€*?
2transformer/block0/attention/query/kernel/part_7:0	€*?
2transformer/block0/attention/query/kernel/part_8:0	€*?
2transformer/block0/attention/query/kernel/part_9:0	€*@
3transformer/block0/attention/query/kernel/part_10:0	€*@
3transformer/block0/attention/query/kernel/part_11:0	€*@
3transformer/block0/attention/query/kernel/part_12:0	€*@
3transformer/block0/attention/query/kernel/part_13:0	€*@
3transformer/block0/attention/query/kernel/part_14:0	€*@
3transformer/block0/attention/query/kernel/part_15:0	€¬
)transformer/block0/attention/query/bias:0"4,1*=
0transformer/block0/attention/query/bias/part_0:0	€*=
0transformer/block0/attention/query/bias/part_1:0	€*=
0transformer/block0/attention/query/bias/part_2:0	€*=
0transformer/block0/attention/query/bias/part_3:0	€©
)transformer/block0/attention/key/kernel:0"16,1,1*=
0transformer/block0/attention/key/kernel/part_0:0	€*=
0transformer/block0/attention/key/kernel/part_1:0	€*=
0transformer/block0/attention/key/kernel/part_2:0	€*=
0transformer/block0/attention/key/kernel/part_3:0	€*=
0transformer/block0/attention/key/kernel/part_4:0	€*=
0transformer/block0/attention/key/kernel/part_5:0	€*=
0transformer/block0/attention/key/kernel/part_6:0	€*=
0transformer/block0/attention/key/kernel/part_7:0	€*=
0transformer/block0/attention/key/kernel/part_8:0	€*=
0transformer/block0/attention/key/kernel/part_9:0	€*>
1transformer/block0/attention/key/kernel/part_10:0	€*>
1transformer/block0/attention/key/kernel/part_11:0	€*>
1transformer/block0/attention/key/kernel/part_12:0	€*>
1transformer/block0/attention/key/kernel/part_13:0	€*>
1transformer/block0/attention/key/kernel/part_14:0	€*>
1transformer/block0/attention/key/kernel/part_15:0	€¢
'transformer/block0/attention/key/bias:0"4,1*;
.transformer/block0/attention/key/bias/part_0:0	€*;
.transformer/block0/attention/key/bias/part_1:0	€*;
.transformer/block0/attention/key/bias/part_2:0	€*;
.transformer/block0/attention/key/bias/part_3:0	€Ë
+transformer/block0/attention/value/kernel:0"16,1,1*?
2transformer/block0/attention/value/kernel/part_0:0	€*?
2transformer/block0/attention/value/kernel/part_1:0	€*?
2transformer/block0/attention/value/kernel/part_2:0	€*?
2transformer/block0/attention/value/kernel/part_3:0	€*?
2transformer/block0/attention/value/kernel/part_4:0	€*?
2transformer/block0/attention/value/kernel/part_5:0	€*?
2transformer/block0/attention/value/kernel/part_6:0	€*?
2transformer/block0/attention/value/kernel/part_7:0	€*?
2transformer/block0/attention/value/kernel/part_8:0	€*?
2transformer/block0/attention/value/kernel/part_9:0	€*@
3transformer/block0/attention/value/kernel/part_10:0	€*@
3transformer/block0/attention/value/kernel/part_11:0	€*@
3transformer/block0/attention/value/kernel/part_12:0	€*@
3transformer/block0/attention/value/kernel/part_13:0	€*@
3transformer/block0/attention/value/kernel/part_14:0	€*@
3transformer/block0/attention/value/kernel/part_15:0	€¬
)transformer/block0/attention/value/bias:0"4,1*=
0transformer/block0/attention/value/bias/part_0:0	€*=
0transformer/block0/attention/value/bias/part_1:0	€*=
0transformer/block0/attention/value/bias/part_2:0	€*=
0transformer/block0/attention/value/bias/part_3:0	€ï
6transformer/block0/attention/attention_output/kernel:0"4,1,1*J
=transformer/block0/attention/attention_output/kernel/part_0:0	€*J
=transformer/block0/attention/attention_output/kernel/part_1:0	€*J
=transformer/block0/attention/attention_output/kernel/part_2:0	€*J
=transformer/block0/attention/attention_output/kernel/part_3:0	€à	
4transformer/block0/attention/attention_output/bias:0"16*H
;transformer/block0/attention/attention_output/bias/part_0:0	€*H
;transformer/block0/attention/attention_output/bias/part_1:0	€*H
;transformer/block0/attention/attention_output/bias/part_2:0	€*H
;transformer/block0/attention/attention_output/bias/part_3:0	€*H
;transformer/block0/attention/attention_output/bias/part_4:0	€*H
;transformer/block0/attention/attention_output/bias/part_5:0	€*H
;transformer/block0/attention/attention_output/bias/part_6:0	€*H
;transformer/block0/attention/attention_output/bias/part_7:0	€*H
;transformer/block0/attention/attention_output/bias/part_8:0	€*H
;transformer/block0/attention/attention_output/bias/part_9:0	€*I
<transformer/block0/attention/attention_output/bias/part_10:0	€*I
<transformer/block0/attention/attention_output/bias/part_11:0	€*I
<transformer/block0/attention/attention_output/bias/part_12:0	€*I
<transformer/block0/attention/attention_output/bias/part_13:0	€*I
<transformer/block0/attention/attention_output/bias/part_14:0	€*I
<transformer/block0/attention/attention_output/bias/part_15:0	€Œ
 transformer/block0/norm1/gamma:0"16*4
'transformer/block0/norm1/gamma/part_0:0	€*4
'transformer/block0/norm1/gamma/part_1:0	€*4
'transformer/block0/norm1/gamma/part_2:0	€*4
'transformer/block0/norm1/gamma/part_3:0	€*4
'transformer/block0/norm1/gamma/part_4:0	€*4
'transformer/block0/norm1/gamma/part_5:0	€*4
'transformer/block0/norm1/gamma/part_6:0	€*4
'transformer/block0/norm1/gamma/part_7:0	€*4
'transformer/block0/norm1/gamma/part_8:0	€*4
'transformer/block0/norm1/gamma/part_9:0	€*5
(transformer/block0/norm1/gamma/part_10:0	€*5
(transformer/block0/norm1/gamma/part_11:0	€*5
(transformer/block0/norm1/gamma/part_12:0	€*5
(transformer/block0/norm1/gamma/part_13:0	€*5
(transformer/block0/norm1/gamma/part_14:0	€*5
(transformer/block0/norm1/gamma/part_15:0	€û
transformer/block0/norm1/beta:0"16*3
&transformer/block0/norm1/beta/part_0:0	€*3
&transformer/block0/norm1/beta/part_1:0	€*3
&transformer/block0/norm1/beta/part_2:0	€*3
&transformer/block0/norm1/beta/part_3:0	€*3
&transformer/block0/norm1/beta/part_4:0	€*3
&transformer/block0/norm1/beta/part_5:0	€*3
&transformer/block0/norm1/beta/part_6:0	€*3
&transformer/block0/norm1/beta/part_7:0	€*3
&transformer/block0/norm1/beta/part_8:0	€*3
&transformer/block0/norm1/beta/part_9:0	€*4
'transformer/block0/norm1/beta/part_10:0	€*4
'transformer/block0/norm1/beta/part_11:0	€*4
'transformer/block0/norm1/beta/part_12:0	€*4
'transformer/block0/norm1/beta/part_13:0	€*4
'transformer/block0/norm1/beta/part_14:0	€*4
'transformer/block0/norm1/beta/part_15:0	€ý
transformer/block0/ff1/kernel:0"16,1*3
&transformer/block0/ff1/kernel/part_0:0	€*3
&transformer/block0/ff1/kernel/part_1:0	€*3
&transformer/block0/ff1/kernel/part_2:0	€*3
&transformer/block0/ff1/kernel/part_3:0	€*3
&transformer/block0/ff1/kernel/part_4:0	€*3
&transformer/block0/ff1/kernel/part_5:0	€*3
&transformer/block0/ff1/kernel/part_6:0	€*3
&transformer/block0/ff1/kernel/part_7:0	€*3
&transformer/block0/ff1/kernel/part_8:0	€*3
&transformer/block0/ff1/kernel/part_9:0	€*4
'transformer/block0/ff1/kernel/part_10:0	€*4
'transformer/block0/ff1/kernel/part_11:0	€*4
'transformer/block0/ff1/kernel/part_12:0	€*4
'transformer/block0/ff1/kernel/part_13:0	€*4
'transformer/block0/ff1/kernel/part_14:0	€*4
'transformer/block0/ff1/kernel/part_15:0	€Ù
transformer/block0/ff1/bias:0"16*1
$transformer/block0/ff1/bias/part_0:0	€*1
$transformer/block0/ff1/bias/part_1:0	€*1
$transformer/block0/ff1/bias/part_2:0	€*1
$transformer/block0/ff1/bias/part_3:0	€*1
$transformer/block0/ff1/bias/part_4:0	€*1
$transformer/block0/ff1/bias/part_5:0	€*1
$transformer/block0/ff1/bias/part_6:0	€*1
$transformer/block0/ff1/bias/part_7:0	€*1
$transformer/block0/ff1/bias/part_8:0	€*1
$transformer/block0/ff1/bias/part_9:0	€*2
%transformer/block0/ff1/bias/part_10:0	€*2
%transformer/block0/ff1/bias/part_11:0	€*2
%transformer/block0/ff1/bias/part_12:0	€*2
%transformer/block0/ff1/bias/part_13:0	€*2
%transformer/block0/ff1/bias/part_14:0	€*2
%transformer/block0/ff1/bias/part_15:0	€ý
transformer/block0/ff2/kernel:0"16,1*3
&transformer/block0/ff2/kernel/part_0:0	€*3
&transformer/block0/ff2/kernel/part_1:0	€*3
&transformer/block0/ff2/kernel/part_2:0	€*3
&transformer/block0/ff2/kernel/part_3:0	€*3
&transformer/block0/ff2/kernel/part_4:0	€*3
&transformer/block0/ff2/kernel/part_5:0	€*3
&transformer/block0/ff2/kernel/part_6:0	€*3
&transformer/block0/ff2/kernel/part_7:0	€*3
&transformer/block0/ff2/kernel/part_8:0	€*3
&transformer/block0/ff2/kernel/part_9:0	€*4
'transformer/block0/ff2/kernel/part_10:0	€*4
'transformer/block0/ff2/kernel/part_11:0	€*4
'transformer/block0/ff2/kernel/part_12:0	€*4
'transformer/block0/ff2/kernel/part_13:0	€*4
'transformer/block0/ff2/kernel/part_14:0	€*4
'transformer/block0/ff2/kernel/part_15:0	€Ù
transformer/block0/ff2/bias:0"16*1
$transformer/block0/ff2/bias/part_0:0	€*1
$transformer/block0/ff2/bias/part_1:0	€*1
$transformer/block0/ff2/bias/part_2:0	€*1
$transformer/block0/ff2/bias/part_3:0	€*1
$transformer/block0/ff2/bias/part_4:0	€*1
$transformer/block0/ff2/bias/part_5:0	€*1
$transformer/block0/ff2/bias/part_6:0	€*1
$transformer/block0/ff2/bias/part_7:0	€*1
$transformer/block0/ff2/bias/part_8:0	€*1
$transformer/block0/ff2/bias/part_9:0	€*2
%transformer/block0/ff2/bias/part_10:0	€*2
%transformer/block0/ff2/bias/part_11:0	€*2
%transformer/block0/ff2/bias/part_12:0	€*2
%transformer/block0/ff2/bias/part_13:0	€*2
%transformer/block0/ff2/bias/part_14:0	€*2
%transformer/block0/ff2/bias/part_15:0	€Œ
 transformer/block0/norm2/gamma:0"16*4
'transformer/block0/norm2/gamma/part_0:0	€*4
'transformer/block0/norm2/gamma/part_1:0	€*4
'transformer/block0/norm2/gamma/part_2:0	€*4
'transformer/block0/norm2/gamma/part_3:0	€*4
'transformer/block0/norm2/gamma/part_4:0	€*4
'transformer/block0/norm2/gamma/part_5:0	€*4
'transformer/block0/norm2/gamma/part_6:0	€*4
'transformer/block0/norm2/gamma/part_7:0	€*4
'transformer/block0/norm2/gamma/part_8:0	€*4
'transformer/block0/norm2/gamma/part_9:0	€*5
(transformer/block0/norm2/gamma/part_10:0	€*5
(transformer/block0/norm2/gamma/part_11:0	€*5
(transformer/block0/norm2/gamma/part_12:0	€*5
(transformer/block0/norm2/gamma/part_13:0	€*5
(transformer/block0/norm2/gamma/part_14:0	€*5
(transformer/block0/norm2/gamma/part_15:0	€û
transformer/block0/norm2/beta:0"16*3
&transformer/block0/norm2/beta/part_0:0	€*3
&transformer/block0/norm2/beta/part_1:0	€*3
&transformer/block0/norm2/beta/part_2:0	€*3
&transformer/block0/norm2/beta/part_3:0	€*3
&transformer/block0/norm2/beta/part_4:0	€*3
&transformer/block0/norm2/beta/part_5:0	€*3
&transformer/block0/norm2/beta/part_6:0	€*3
&transformer/block0/norm2/beta/part_7:0	€*3
&transformer/block0/norm2/beta/part_8:0	€*3
&transformer/block0/norm2/beta/part_9:0	€*4
'transformer/block0/norm2/beta/part_10:0	€*4
'transformer/block0/norm2/beta/part_11:0	€*4
'transformer/block0/norm2/beta/part_12:0	€*4
'transformer/block0/norm2/beta/part_13:0	€*4
'transformer/block0/norm2/beta/part_14:0	€*4
'transformer/block0/norm2/beta/part_15:0	€Ë
+transformer/block1/attention/query/kernel:0"16,1,1*?
2transformer/block1/attention/query/kernel/part_0:0	€*?
2transformer/block1/attention/query/kernel/part_1:0	€*?
2transformer/block1/attention/query/kernel/part_2:0	€*?
2transformer/block1/attention/query/kernel/part_3:0	€*?
2transformer/block1/attention/query/kernel/part_4:0	€*?
2transformer/block1/attention/query/kernel/part_5:0	€*?
2transformer/block1/attention/query/kernel/part_6:0	€*?
2transformer/block1/attention/query/kernel/part_7:0	€*?
2transformer/block1/attention/query/kernel/part_8:0	€*?
2transformer/block1/attention/query/kernel/part_9:0	€*@
3transformer/block1/attention/query/kernel/part_10:0	€*@
3transformer/block1/attention/query/kernel/part_11:0	€*@
3transformer/block1/attention/query/kernel/part_12:0	€*@
3transformer/block1/attention/query/kernel/part_13:0	€*@
3transformer/block1/attention/query/kernel/part_14:0	€*@
3transformer/block1/attention/query/kernel/part_15:0	€¬
)transformer/block1/attention/query/bias:0"4,1*=
0transformer/block1/attention/query/bias/part_0:0	€*=
0transformer/block1/attention/query/bias/part_1:0	€*=
0transformer/block1/attention/query/bias/part_2:0	€*=
0transformer/block1/attention/query/bias/part_3:0	€©
)transformer/block1/attention/key/kernel:0"16,1,1*=
0transformer/block1/attention/key/kernel/part_0:0	€*=
0transformer/block1/attention/key/kernel/part_1:0	€*=
0transformer/block1/attention/key/kernel/part_2:0	€*=
0transformer/block1/attention/key/kernel/part_3:0	€*=
0transformer/block1/attention/key/kernel/part_4:0	€*=
0transformer/block1/attention/key/kernel/part_5:0	€*=
0transformer/block1/attention/key/kernel/part_6:0	€*=
0transformer/block1/attention/key/kernel/part_7:0	€*=
0transformer/block1/attention/key/kernel/part_8:0	€*=
0transformer/block1/attention/key/kernel/part_9:0	€*>
1transformer/block1/attention/key/kernel/part_10:0	€*>
1transformer/block1/attention/key/kernel/part_11:0	€*>
1transformer/block1/attention/key/kernel/part_12:0	€*>
1transformer/block1/attention/key/kernel/part_13:0	€*>
1transformer/block1/attention/key/kernel/part_14:0	€*>
1transformer/block1/attention/key/kernel/part_15:0	€¢
'transformer/block1/attention/key/bias:0"4,1*;
.transformer/block1/attention/key/bias/part_0:0	€*;
.transformer/block1/attention/key/bias/part_1:0	€*;
.transformer/block1/attention/key/bias/part_2:0	€*;
.transformer/block1/attention/key/bias/part_3:0	€Ë
+transformer/block1/attention/value/kernel:0"16,1,1*?
2transformer/block1/attention/value/kernel/part_0:0	€*?
2transformer/block1/attention/value/kernel/part_1:0	€*?
2transformer/block1/attention/value/kernel/part_2:0	€*?
2transformer/block1/attention/value/kernel/part_3:0	€*?
2transformer/block1/attention/value/kernel/part_4:0	€*?
2transformer/block1/attention/value/kernel/part_5:0	€*?
2transformer/block1/attention/value/kernel/part_6:0	€*?
2transformer/block1/attention/value/kernel/part_7:0	€*?
2transformer/block1/attention/value/kernel/part_8:0	€*?
2transformer/block1/attention/value/kernel/part_9:0	€*@
3transformer/block1/attention/value/kernel/part_10:0	€*@
3transformer/block1/attention/value/kernel/part_11:0	€*@
3transformer/block1/attention/value/kernel/part_12:0	€*@
3transformer/block1/attention/value/kernel/part_13:0	€*@
3transformer/block1/attention/value/kernel/part_14:0	€*@
3transformer/block1/attention/value/kernel/part_15:0	€¬
)transformer/block1/attention/value/bias:0"4,1*=
0transformer/block1/attention/value/bias/part_0:0	€*=
0transformer/block1/attention/value/bias/part_1:0	€*=
0transformer/block1/attention/value/bias/part_2:0	€*=
0transformer/block1/attention/value/bias/part_3:0	€ï
6transformer/block1/attention/attention_output/kernel:0"4,1,1*J
=transformer/block1/attention/attention_output/kernel/part_0:0	€*J
=transformer/block1/attention/attention_output/kernel/part_1:0	€*J
=transformer/block1/attention/attention_output/kernel/part_2:0	€*J
=transformer/block1/attention/attention_output/kernel/part_3:0	€à	
4transformer/block1/attention/attention_output/bias:0"16*H
;transformer/block1/attention/attention_output/bias/part_0:0	€*H
;transformer/block1/attention/attention_output/bias/part_1:0	€*H
;transformer/block1/attention/attention_output/bias/part_2:0	€*H
;transformer/block1/attention/attention_output/bias/part_3:0	€*H
;transformer/block1/attention/attention_output/bias/part_4:0	€*H
;transformer/block1/attention/attention_output/bias/part_5:0	€*H
;transformer/block1/attention/attention_output/bias/part_6:0	€*H
;transformer/block1/attention/attention_output/bias/part_7:0	€*H
;transformer/block1/attention/attention_output/bias/part_8:0	€*H
;transformer/block1/attention/attention_output/bias/part_9:0	€*I
<transformer/block1/attention/attention_output/bias/part_10:0	€*I
<transformer/block1/attention/attention_output/bias/part_11:0	€*I
<transformer/block1/attention/attention_output/bias/part_12:0	€*I
<transformer/block1/attention/attention_output/bias/part_13:0	€*I
<transformer/block1/attention/attention_output/bias/part_14:0	€*I
<transformer/block1/attention/attention_output/bias/part_15:0	€Œ
 transformer/block1/norm1/gamma:0"16*4
'transformer/block1/norm1/gamma/part_0:0	€*4
'transformer/block1/norm1/gamma/part_1:0	€*4
'transformer/block1/norm1/gamma/part_2:0	€*4
'transformer/block1/norm1/gamma/part_3:0	€*4
'transformer/block1/norm1/gamma/part_4:0	€*4
'transformer/block1/norm1/gamma/part_5:0	€*4
'transformer/block1/norm1/gamma/part_6:0	€*4
'transformer/block1/norm1/gamma/part_7:0	€*4
'transformer/block1/norm1/gamma/part_8:0	€*4
'transformer/block1/norm1/gamma/part_9:0	€*5
(transformer/block1/norm1/gamma/part_10:0	€*5
(transformer/block1/norm1/gamma/part_11:0	€*5
(transformer/block1/norm1/gamma/part_12:0	€*5
(transformer/block1/norm1/gamma/part_13:0	€*5
(transformer/block1/norm1/gamma/part_14:0	€*5
(transformer/block1/norm1/gamma/part_15:0	€û
transformer/block1/norm1/beta:0"16*3
&transformer/block1/norm1/beta/part_0:0	€*3
&transformer/block1/norm1/beta/part_1:0	€*3
&transformer/block1/norm1/beta/part_2:0	€*3
&transformer/block1/norm1/beta/part_3:0	€*3
&transformer/block1/norm1/beta/part_4:0	€*3
&transformer/block1/norm1/beta/part_5:0	€*3
&transformer/block1/norm1/beta/part_6:0	€*3
&transformer/block1/norm1/beta/part_7:0	€*3
&transformer/block1/norm1/beta/part_8:0	€*3
&transformer/block1/norm1/beta/part_9:0	€*4
'transformer/block1/norm1/beta/part_10:0	€*4
'transformer/block1/norm1/beta/part_11:0	€*4
'transformer/block1/norm1/beta/part_12:0	€*4
'transformer/block1/norm1/beta/part_13:0	€*4
'transformer/block1/norm1/beta/part_14:0	€*4
'transformer/block1/norm1/beta/part_15:0	€ý
transformer/block1/ff1/kernel:0"16,1*3
&transformer/block1/ff1/kernel/part_0:0	€*3
&transformer/block1/ff1/kernel/part_1:0	€*3
&transformer/block1/ff1/kernel/part_2:0	€*3
&transformer/block1/ff1/kernel/part_3:0	€*3
&transformer/block1/ff1/kernel/part_4:0	€*3
&transformer/block1/ff1/kernel/part_5:0	€*3
&transformer/block1/ff1/kernel/part_6:0	€*3
&transformer/block1/ff1/kernel/part_7:0	€*3
&transformer/block1/ff1/kernel/part_8:0	€*3
&transformer/block1/ff1/kernel/part_9:0	€*4
'transformer/block1/ff1/kernel/part_10:0	€*4
'transformer/block1/ff1/kernel/part_11:0	€*4
'transformer/block1/ff1/kernel/part_12:0	€*4
'transformer/block1/ff1/kernel/part_13:0	€*4
'transformer/block1/ff1/kernel/part_14:0	€*4
'transformer/block1/ff1/kernel/part_15:0	€Ù
transformer/block1/ff1/bias:0"16*1
$transformer/block1/ff1/bias/part_0:0	€*1
$transformer/block1/ff1/bias/part_1:0	€*1
$transformer/block1/ff1/bias/part_2:0	€*1
$transformer/block1/ff1/bias/part_3:0	€*1
$transformer/block1/ff1/bias/part_4:0	€*1
$transformer/block1/ff1/bias/part_5:0	€*1
$transformer/block1/ff1/bias/part_6:0	€*1
$transformer/block1/ff1/bias/part_7:0	€*1
$transformer/block1/ff1/bias/part_8:0	€*1
$transformer/block1/ff1/bias/part_9:0	€*2
%transformer/block1/ff1/bias/part_10:0	€*2
%transformer/block1/ff1/bias/part_11:0	€*2
%transformer/block1/ff1/bias/part_12:0	€*2
%transformer/block1/ff1/bias/part_13:0	€*2
%transformer/block1/ff1/bias/part_14:0	€*2
%transformer/block1/ff1/bias/part_15:0	€ý
transformer/block1/ff2/kernel:0"16,1*3
&transformer/block1/ff2/kernel/part_0:0	€*3
&transformer/block1/ff2/kernel/part_1:0	€*3
&transformer/block1/ff2/kernel/part_2:0	€*3
&transformer/block1/ff2/kernel/part_3:0	€*3
&transformer/block1/ff2/kernel/part_4:0	€*3
&transformer/block1/ff2/kernel/part_5:0	€*3
&transformer/block1/ff2/kernel/part_6:0	€*3
&transformer/block1/ff2/kernel/part_7:0	€*3
&transformer/block1/ff2/kernel/part_8:0	€*3
&transformer/block1/ff2/kernel/part_9:0	€*4
'transformer/block1/ff2/kernel/part_10:0	€*4
'transformer/block1/ff2/kernel/part_11:0	€*4
'transformer/block1/ff2/kernel/part_12:0	€*4
'transformer/block1/ff2/kernel/part_13:0	€*4
'transformer/block1/ff2/kernel/part_14:0	€*4
'transformer/block1/ff2/kernel/part_15:0	€Ù
transformer/block1/ff2/bias:0"16*1
$transformer/block1/ff2/bias/part_0:0	€*1
$transformer/block1/ff2/bias/part_1:0	€*1
$transformer/block1/ff2/bias/part_2:0	€*1
$transformer/block1/ff2/bias/part_3:0	€*1
$transformer/block1/ff2/bias/part_4:0	€*1
$transformer/block1/ff2/bias/part_5:0	€*1
$transformer/block1/ff2/bias/part_6:0	€*1
$transformer/block1/ff2/bias/part_7:0	€*1
$transformer/block1/ff2/bias/part_8:0	€*1
$transformer/block1/ff2/bias/part_9:0	€*2
%transformer/block1/ff2/bias/part_10:0	€*2
%transformer/block1/ff2/bias/part_11:0	€*2
%transformer/block1/ff2/bias/part_12:0	€*2
%transformer/block1/ff2/bias/part_13:0	€*2
%transformer/block1/ff2/bias/part_14:0	€*2
%transformer/block1/ff2/bias/part_15:0	€Œ
 transformer/block1/norm2/gamma:0"16*4
'transformer/block1/norm2/gamma/part_0:0	€*4
'transformer/block1/norm2/gamma/part_1:0	€*4
'transformer/block1/norm2/gamma/part_2:0	€*4
'transformer/block1/norm2/gamma/part_3:0	€*4
'transformer/block1/norm2/gamma/part_4:0	€*4
'transformer/block1/norm2/gamma/part_5:0	€*4
'transformer/block1/norm2/gamma/part_6:0	€*4
'transformer/block1/norm2/gamma/part_7:0	€*4
'transformer/block1/norm2/gamma/part_8:0	€*4
'transformer/block1/norm2/gamma/part_9:0	€*5
(transformer/block1/norm2/gamma/part_10:0	€*5
(transformer/block1/norm2/gamma/part_11:0	€*5
(transformer/block1/norm2/gamma/part_12:0	€*5
(transformer/block1/norm2/gamma/part_13:0	€*5
(transformer/block1/norm2/gamma/part_14:0	€*5
(transformer/block1/norm2/gamma/part_15:0	€û
transformer/block1/norm2/beta:0"16*3
&transformer/block1/norm2/beta/part_0:0	€*3
&transformer/block1/norm2/beta/part_1:0	€*3
&transformer/block1/norm2/beta/part_2:0	€*3
&transformer/block1/norm2/beta/part_3:0	€*3
&transformer/block1/norm2/beta/part_4:0	€*3
&transformer/block1/norm2/beta/part_5:0	€*3
&transformer/block1/norm2/beta/part_6:0	€*3
&transformer/block1/norm2/beta/part_7:0	€*3
&transformer/block1/norm2/beta/part_8:0	€*3
&transformer/block1/norm2/beta/part_9:0	€*4
'transformer/block1/norm2/beta/part_10:0	€*4
'transformer/block1/norm2/beta/part_11:0	€*4
'transformer/block1/norm2/beta/part_12:0	€*4
'transformer/block1/norm2/beta/part_13:0	€*4
'transformer/block1/norm2/beta/part_14:0	€*4
'transformer/block1/norm2/beta/part_15:0	€—
transformer/head/kernel:0"16,1*-
 transformer/head/kernel/part_0:0	€*-
 transformer/head/kernel/part_1:0	€*-
 transformer/head/kernel/part_2:0	€*-
 transformer/head/kernel/part_3:0	€*-
 transformer/head/kernel/part_4:0	€*-
 transformer/head/kernel/part_5:0	€*-
 transformer/head/kernel/part_6:0	€*-
 transformer/head/kernel/part_7:0	€*-
 transformer/head/kernel/part_8:0	€*-
 transformer/head/kernel/part_9:0	€*.
!transformer/head/kernel/part_10:0	€*.
!transformer/head/kernel/part_11:0	€*.
!transformer/head/kernel/part_12:0	€*.
!transformer/head/kernel/part_13:0	€*.
!transformer/head/kernel/part_14:0	€*.
!transformer/head/kernel/part_15:0	€Ð
transformer/head/bias:0"4*+
transformer/head/bias/part_0:0	€*+
transformer/head/bias/part_1:0	€*+
transformer/head/bias/part_2:0	€*+
transformer/head/bias/part_3:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search