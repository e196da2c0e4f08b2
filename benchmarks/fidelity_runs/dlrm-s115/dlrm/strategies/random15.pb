
search-8d34be159e93ô
dlrm/ad_embedding/embeddings:0"4,1*-
%dlrm/ad_embedding/embeddings/part_0:0*/
%dlrm/ad_embedding/embeddings/part_1:0*-
%dlrm/ad_embedding/embeddings/part_2:0*>
%dlrm/ad_embedding/embeddings/part_3:0
198.18.7.12:CPU:09
 dlrm/user_embedding/embeddings:0
198.18.7.11:CPU:0ø
 dlrm/site_embedding/embeddings:0"8,1*@
'dlrm/site_embedding/embeddings/part_0:0
198.18.7.11:CPU:0*B
'dlrm/site_embedding/embeddings/part_1:0
198.18.7.11:CPU:0*4
'dlrm/site_embedding/embeddings/part_2:0	€*/
'dlrm/site_embedding/embeddings/part_3:0*@
'dlrm/site_embedding/embeddings/part_4:0
198.18.7.13:CPU:0*/
'dlrm/site_embedding/embeddings/part_5:0*-
'dlrm/site_embedding/embeddings/part_6:0*@
'dlrm/site_embedding/embeddings/part_7:0
198.18.7.11:CPU:0{
dlrm/bottom1/kernel:0"1,2*&
dlrm/bottom1/kernel/part_0:0*5
dlrm/bottom1/kernel/part_1:0
198.18.7.13:CPU:0İ
dlrm/bottom1/bias:0"4*5
dlrm/bottom1/bias/part_0:0
198.18.7.11:CPU:0*5
dlrm/bottom1/bias/part_1:0
198.18.7.11:CPU:0*3
dlrm/bottom1/bias/part_2:0
198.18.7.12:CPU:0* 
dlrm/bottom1/bias/part_3:0Î
dlrm/bottom2/kernel:0"4,1*&
dlrm/bottom2/kernel/part_0:0*$
dlrm/bottom2/kernel/part_1:0*7
dlrm/bottom2/kernel/part_2:0
198.18.7.13:CPU:0*)
dlrm/bottom2/kernel/part_3:0	€u
dlrm/bottom2/bias:0"2*5
dlrm/bottom2/bias/part_0:0
198.18.7.13:CPU:0*$
dlrm/bottom2/bias/part_1:0¦
dlrm/top1/kernel:0"3,1*!
dlrm/top1/kernel/part_0:0*2
dlrm/top1/kernel/part_1:0
198.18.7.13:CPU:0*4
dlrm/top1/kernel/part_2:0
198.18.7.11:CPU:0ä
dlrm/top1/bias:0"8*0
dlrm/top1/bias/part_0:0
198.18.7.13:CPU:0*
dlrm/top1/bias/part_1:0*0
dlrm/top1/bias/part_2:0
198.18.7.11:CPU:0*0
dlrm/top1/bias/part_3:0
198.18.7.12:CPU:0*
dlrm/top1/bias/part_4:0*"
dlrm/top1/bias/part_5:0€*
dlrm/top1/bias/part_6:0*2
dlrm/top1/bias/part_7:0
198.18.7.12:CPU:0
dlrm/top2/kernel:0
dlrm/top2/bias:0x
dlrm/click/kernel:0"2,1*'
dlrm/click/kernel/part_0:0	€*3
dlrm/click/kernel/part_1:0
198.18.7.11:CPU:0
dlrm/click/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search