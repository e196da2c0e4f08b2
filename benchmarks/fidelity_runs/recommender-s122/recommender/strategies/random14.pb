
search-cfe9da1d007d¹
'recommender/user_embedding/embeddings:0"4,1*;
.recommender/user_embedding/embeddings/part_0:0	€*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*I
.recommender/user_embedding/embeddings/part_2:0
198.18.7.12:CPU:0*6
.recommender/user_embedding/embeddings/part_3:0³
'recommender/item_embedding/embeddings:0"2,1*8
.recommender/item_embedding/embeddings/part_0:0*I
.recommender/item_embedding/embeddings/part_1:0
198.18.7.11:CPU:0û
recommender/hidden/kernel:0"1,4**
"recommender/hidden/kernel/part_0:0*;
"recommender/hidden/kernel/part_1:0
198.18.7.12:CPU:0*=
"recommender/hidden/kernel/part_2:0
198.18.7.13:CPU:0*/
"recommender/hidden/kernel/part_3:0	€â
recommender/hidden/bias:0"4*-
 recommender/hidden/bias/part_0:0	€*;
 recommender/hidden/bias/part_1:0
198.18.7.13:CPU:0**
 recommender/hidden/bias/part_2:0**
 recommender/hidden/bias/part_3:0Ð
recommender/score/kernel:0"8,1*:
!recommender/score/kernel/part_0:0
198.18.7.12:CPU:0*)
!recommender/score/kernel/part_1:0*:
!recommender/score/kernel/part_2:0
198.18.7.12:CPU:0*)
!recommender/score/kernel/part_3:0*:
!recommender/score/kernel/part_4:0
198.18.7.13:CPU:0*:
!recommender/score/kernel/part_5:0
198.18.7.13:CPU:0*)
!recommender/score/kernel/part_6:0*<
!recommender/score/kernel/part_7:0
198.18.7.12:CPU:0 
recommender/score/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search