
search-f7ef8947d45eé
dlrm/ad_embedding/embeddings:0"3,1*>
%dlrm/ad_embedding/embeddings/part_0:0
198.18.7.11:CPU:0*@
%dlrm/ad_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*@
%dlrm/ad_embedding/embeddings/part_2:0
198.18.7.13:CPU:0¯
 dlrm/user_embedding/embeddings:0"2,1*B
'dlrm/user_embedding/embeddings/part_0:0
198.18.7.12:CPU:0*B
'dlrm/user_embedding/embeddings/part_1:0
198.18.7.12:CPU:0ş
 dlrm/site_embedding/embeddings:0"16,1*B
'dlrm/site_embedding/embeddings/part_0:0
198.18.7.12:CPU:0*B
'dlrm/site_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*/
'dlrm/site_embedding/embeddings/part_2:0*B
'dlrm/site_embedding/embeddings/part_3:0
198.18.7.12:CPU:0*@
'dlrm/site_embedding/embeddings/part_4:0
198.18.7.12:CPU:0*@
'dlrm/site_embedding/embeddings/part_5:0
198.18.7.12:CPU:0*1
'dlrm/site_embedding/embeddings/part_6:0*@
'dlrm/site_embedding/embeddings/part_7:0
198.18.7.11:CPU:0*4
'dlrm/site_embedding/embeddings/part_8:0	€*2
'dlrm/site_embedding/embeddings/part_9:0€*C
(dlrm/site_embedding/embeddings/part_10:0
198.18.7.11:CPU:0*0
(dlrm/site_embedding/embeddings/part_11:0*2
(dlrm/site_embedding/embeddings/part_12:0*A
(dlrm/site_embedding/embeddings/part_13:0
198.18.7.11:CPU:0*C
(dlrm/site_embedding/embeddings/part_14:0
198.18.7.13:CPU:0*A
(dlrm/site_embedding/embeddings/part_15:0
198.18.7.11:CPU:0Ô
dlrm/bottom1/kernel:0"1,4*"
dlrm/bottom1/kernel/part_0:0*$
dlrm/bottom1/kernel/part_1:0*5
dlrm/bottom1/kernel/part_2:0
198.18.7.13:CPU:0*5
dlrm/bottom1/kernel/part_3:0
198.18.7.12:CPU:0Û
dlrm/bottom1/bias:0"4*"
dlrm/bottom1/bias/part_0:0*3
dlrm/bottom1/bias/part_1:0
198.18.7.12:CPU:0*3
dlrm/bottom1/bias/part_2:0
198.18.7.11:CPU:0*3
dlrm/bottom1/bias/part_3:0
198.18.7.13:CPU:00
dlrm/bottom2/kernel:0
198.18.7.12:CPU:0˜
dlrm/bottom2/bias:0"8*%
dlrm/bottom2/bias/part_0:0€*5
dlrm/bottom2/bias/part_1:0
198.18.7.13:CPU:0*3
dlrm/bottom2/bias/part_2:0
198.18.7.13:CPU:0*$
dlrm/bottom2/bias/part_3:0*5
dlrm/bottom2/bias/part_4:0
198.18.7.13:CPU:0*5
dlrm/bottom2/bias/part_5:0
198.18.7.12:CPU:0*3
dlrm/bottom2/bias/part_6:0
198.18.7.13:CPU:0*"
dlrm/bottom2/bias/part_7:0
dlrm/top1/kernel:0Õ
dlrm/top1/bias:0"8*
dlrm/top1/bias/part_0:0*
dlrm/top1/bias/part_1:0*
dlrm/top1/bias/part_2:0*0
dlrm/top1/bias/part_3:0
198.18.7.12:CPU:0*0
dlrm/top1/bias/part_4:0
198.18.7.11:CPU:0*$
dlrm/top1/bias/part_5:0	€*!
dlrm/top1/bias/part_6:0*2
dlrm/top1/bias/part_7:0
198.18.7.11:CPU:0Ê
dlrm/top2/kernel:0"16,1*!
dlrm/top2/kernel/part_0:0*#
dlrm/top2/kernel/part_1:0*&
dlrm/top2/kernel/part_2:0	€*4
dlrm/top2/kernel/part_3:0
198.18.7.13:CPU:0*&
dlrm/top2/kernel/part_4:0	€*4
dlrm/top2/kernel/part_5:0
198.18.7.12:CPU:0*!
dlrm/top2/kernel/part_6:0*!
dlrm/top2/kernel/part_7:0*!
dlrm/top2/kernel/part_8:0*4
dlrm/top2/kernel/part_9:0
198.18.7.11:CPU:0* 
dlrm/top2/kernel/part_10:0*5
dlrm/top2/kernel/part_11:0
198.18.7.13:CPU:0*3
dlrm/top2/kernel/part_12:0
198.18.7.11:CPU:0*"
dlrm/top2/kernel/part_13:0*"
dlrm/top2/kernel/part_14:0*5
dlrm/top2/kernel/part_15:0
198.18.7.13:CPU:0
dlrm/top2/bias:0Ğ
dlrm/click/kernel:0"4,1* 
dlrm/click/kernel/part_0:0*$
dlrm/click/kernel/part_1:0*5
dlrm/click/kernel/part_2:0
198.18.7.13:CPU:0*5
dlrm/click/kernel/part_3:0
198.18.7.13:CPU:0
dlrm/click/bias:0	€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search