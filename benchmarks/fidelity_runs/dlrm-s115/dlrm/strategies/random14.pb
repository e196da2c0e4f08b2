
search-9a3268a99848›
dlrm/ad_embedding/embeddings:0"2,1*@
%dlrm/ad_embedding/embeddings/part_0:0
198.18.7.11:CPU:0*2
%dlrm/ad_embedding/embeddings/part_1:0	€9
 dlrm/user_embedding/embeddings:0
198.18.7.12:CPU:0(
 dlrm/site_embedding/embeddings:0ó
dlrm/bottom1/kernel:0"13,1*$
dlrm/bottom1/kernel/part_0:0*7
dlrm/bottom1/kernel/part_1:0
198.18.7.11:CPU:0*5
dlrm/bottom1/kernel/part_2:0
198.18.7.13:CPU:0*&
dlrm/bottom1/kernel/part_3:0*&
dlrm/bottom1/kernel/part_4:0*'
dlrm/bottom1/kernel/part_5:0€*$
dlrm/bottom1/kernel/part_6:0*7
dlrm/bottom1/kernel/part_7:0
198.18.7.12:CPU:0*)
dlrm/bottom1/kernel/part_8:0	€*5
dlrm/bottom1/kernel/part_9:0
198.18.7.12:CPU:0*6
dlrm/bottom1/kernel/part_10:0
198.18.7.12:CPU:0*%
dlrm/bottom1/kernel/part_11:0*%
dlrm/bottom1/kernel/part_12:0
dlrm/bottom1/bias:0Ö
dlrm/bottom2/kernel:0"1,4*$
dlrm/bottom2/kernel/part_0:0*7
dlrm/bottom2/kernel/part_1:0
198.18.7.12:CPU:0*"
dlrm/bottom2/kernel/part_2:0*5
dlrm/bottom2/kernel/part_3:0
198.18.7.12:CPU:0,
dlrm/bottom2/bias:0
198.18.7.11:CPU:0Ë
dlrm/top1/kernel:0"16,1*2
dlrm/top1/kernel/part_0:0
198.18.7.11:CPU:0*2
dlrm/top1/kernel/part_1:0
198.18.7.12:CPU:0*#
dlrm/top1/kernel/part_2:0*!
dlrm/top1/kernel/part_3:0*2
dlrm/top1/kernel/part_4:0
198.18.7.12:CPU:0*4
dlrm/top1/kernel/part_5:0
198.18.7.12:CPU:0*!
dlrm/top1/kernel/part_6:0*2
dlrm/top1/kernel/part_7:0
198.18.7.13:CPU:0*
dlrm/top1/kernel/part_8:0*#
dlrm/top1/kernel/part_9:0* 
dlrm/top1/kernel/part_10:0* 
dlrm/top1/kernel/part_11:0*"
dlrm/top1/kernel/part_12:0*"
dlrm/top1/kernel/part_13:0*5
dlrm/top1/kernel/part_14:0
198.18.7.13:CPU:0*5
dlrm/top1/kernel/part_15:0
198.18.7.11:CPU:0o
dlrm/top1/bias:0"2*$
dlrm/top1/bias/part_0:0	€*2
dlrm/top1/bias/part_1:0
198.18.7.12:CPU:0r
dlrm/top2/kernel:0"1,2*2
dlrm/top2/kernel/part_0:0
198.18.7.13:CPU:0*#
dlrm/top2/kernel/part_1:0
dlrm/top2/bias:0¨
dlrm/click/kernel:0"3,1*3
dlrm/click/kernel/part_0:0
198.18.7.11:CPU:0*"
dlrm/click/kernel/part_1:0*3
dlrm/click/kernel/part_2:0
198.18.7.12:CPU:0*
dlrm/click/bias:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search