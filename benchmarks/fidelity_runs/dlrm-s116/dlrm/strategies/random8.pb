
search-4298dc4a9ae89
dlrm/ad_embedding/embeddings:0
198.18.7.11:CPU:0&
 dlrm/user_embedding/embeddings:0(
 dlrm/site_embedding/embeddings:0}
dlrm/bottom1/kernel:0"2,1*7
dlrm/bottom1/kernel/part_0:0
198.18.7.12:CPU:0*&
dlrm/bottom1/kernel/part_1:0 
dlrm/bottom1/bias:0	€Œ
dlrm/bottom2/kernel:0"8,1*&
dlrm/bottom2/kernel/part_0:0*&
dlrm/bottom2/kernel/part_1:0*7
dlrm/bottom2/kernel/part_2:0
198.18.7.13:CPU:0*$
dlrm/bottom2/kernel/part_3:0*5
dlrm/bottom2/kernel/part_4:0
198.18.7.13:CPU:0*$
dlrm/bottom2/kernel/part_5:0*7
dlrm/bottom2/kernel/part_6:0
198.18.7.13:CPU:0*)
dlrm/bottom2/kernel/part_7:0	€Ê
dlrm/bottom2/bias:0"4*3
dlrm/bottom2/bias/part_0:0
198.18.7.12:CPU:0*3
dlrm/bottom2/bias/part_1:0
198.18.7.11:CPU:0*$
dlrm/bottom2/bias/part_2:0* 
dlrm/bottom2/bias/part_3:0¯
dlrm/top1/kernel:0"1,16*4
dlrm/top1/kernel/part_0:0
198.18.7.11:CPU:0*4
dlrm/top1/kernel/part_1:0
198.18.7.12:CPU:0*2
dlrm/top1/kernel/part_2:0
198.18.7.11:CPU:0*4
dlrm/top1/kernel/part_3:0
198.18.7.11:CPU:0*2
dlrm/top1/kernel/part_4:0
198.18.7.11:CPU:0*&
dlrm/top1/kernel/part_5:0	€*2
dlrm/top1/kernel/part_6:0
198.18.7.11:CPU:0*!
dlrm/top1/kernel/part_7:0*4
dlrm/top1/kernel/part_8:0
198.18.7.11:CPU:0*#
dlrm/top1/kernel/part_9:0*3
dlrm/top1/kernel/part_10:0
198.18.7.11:CPU:0*5
dlrm/top1/kernel/part_11:0
198.18.7.12:CPU:0*"
dlrm/top1/kernel/part_12:0*3
dlrm/top1/kernel/part_13:0
198.18.7.13:CPU:0*3
dlrm/top1/kernel/part_14:0
198.18.7.13:CPU:0*5
dlrm/top1/kernel/part_15:0
198.18.7.13:CPU:0æ
dlrm/top1/bias:0"8*0
dlrm/top1/bias/part_0:0
198.18.7.13:CPU:0*
dlrm/top1/bias/part_1:0*0
dlrm/top1/bias/part_2:0
198.18.7.12:CPU:0*
dlrm/top1/bias/part_3:0*
dlrm/top1/bias/part_4:0*0
dlrm/top1/bias/part_5:0
198.18.7.11:CPU:0*2
dlrm/top1/bias/part_6:0
198.18.7.11:CPU:0*$
dlrm/top1/bias/part_7:0	€¬
dlrm/top2/kernel:0"16,1*
dlrm/top2/kernel/part_0:0*
dlrm/top2/kernel/part_1:0*!
dlrm/top2/kernel/part_2:0*2
dlrm/top2/kernel/part_3:0
198.18.7.12:CPU:0*!
dlrm/top2/kernel/part_4:0*4
dlrm/top2/kernel/part_5:0
198.18.7.13:CPU:0*&
dlrm/top2/kernel/part_6:0	€*4
dlrm/top2/kernel/part_7:0
198.18.7.11:CPU:0*!
dlrm/top2/kernel/part_8:0*2
dlrm/top2/kernel/part_9:0
198.18.7.12:CPU:0*"
dlrm/top2/kernel/part_10:0*"
dlrm/top2/kernel/part_11:0*"
dlrm/top2/kernel/part_12:0*5
dlrm/top2/kernel/part_13:0
198.18.7.11:CPU:0*"
dlrm/top2/kernel/part_14:0*"
dlrm/top2/kernel/part_15:0Î
dlrm/top2/bias:0"8*2
dlrm/top2/bias/part_0:0
198.18.7.12:CPU:0*
dlrm/top2/bias/part_1:0*"
dlrm/top2/bias/part_2:0€*$
dlrm/top2/bias/part_3:0	€*
dlrm/top2/bias/part_4:0*
dlrm/top2/bias/part_5:0*2
dlrm/top2/bias/part_6:0
198.18.7.11:CPU:0*$
dlrm/top2/bias/part_7:0	€ó
dlrm/click/kernel:0"8,1*"
dlrm/click/kernel/part_0:0*$
dlrm/click/kernel/part_1:0*"
dlrm/click/kernel/part_2:0*5
dlrm/click/kernel/part_3:0
198.18.7.11:CPU:0*"
dlrm/click/kernel/part_4:0*3
dlrm/click/kernel/part_5:0
198.18.7.12:CPU:0*5
dlrm/click/kernel/part_6:0
198.18.7.12:CPU:0*"
dlrm/click/kernel/part_7:0*
dlrm/click/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search