
search-d959c2f00ace7
dlrm/ad_embedding/embeddings:0
198.18.7.13:CPU:0¸
 dlrm/user_embedding/embeddings:0"3,1*-
'dlrm/user_embedding/embeddings/part_0:0*/
'dlrm/user_embedding/embeddings/part_1:0*/
'dlrm/user_embedding/embeddings/part_2:0
 dlrm/site_embedding/embeddings:0"2,1*/
'dlrm/site_embedding/embeddings/part_0:0*4
'dlrm/site_embedding/embeddings/part_1:0	€0
dlrm/bottom1/kernel:0
198.18.7.11:CPU:0s
dlrm/bottom1/bias:0"2*3
dlrm/bottom1/bias/part_0:0
198.18.7.13:CPU:0*$
dlrm/bottom1/bias/part_1:0Œ
dlrm/bottom2/kernel:0"8,1*$
dlrm/bottom2/kernel/part_0:0*7
dlrm/bottom2/kernel/part_1:0
198.18.7.13:CPU:0*$
dlrm/bottom2/kernel/part_2:0*)
dlrm/bottom2/kernel/part_3:0	€*7
dlrm/bottom2/kernel/part_4:0
198.18.7.11:CPU:0*&
dlrm/bottom2/kernel/part_5:0*$
dlrm/bottom2/kernel/part_6:0*7
dlrm/bottom2/kernel/part_7:0
198.18.7.12:CPU:0.
dlrm/bottom2/bias:0
198.18.7.13:CPU:0¹
dlrm/top1/kernel:0"1,3*4
dlrm/top1/kernel/part_0:0
198.18.7.13:CPU:0*2
dlrm/top1/kernel/part_1:0
198.18.7.11:CPU:0*4
dlrm/top1/kernel/part_2:0
198.18.7.13:CPU:0ª
dlrm/top1/bias:0"4*2
dlrm/top1/bias/part_0:0
198.18.7.11:CPU:0*
dlrm/top1/bias/part_1:0*
dlrm/top1/bias/part_2:0*
dlrm/top1/bias/part_3:0œ
dlrm/top2/kernel:0"1,3*#
dlrm/top2/kernel/part_0:0*&
dlrm/top2/kernel/part_1:0	€*4
dlrm/top2/kernel/part_2:0
198.18.7.12:CPU:0
dlrm/top2/bias:0	€,
dlrm/click/kernel:0
198.18.7.11:CPU:0*
dlrm/click/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search