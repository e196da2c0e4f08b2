
search-8f290c2a2570´
'recommender/user_embedding/embeddings:0"2,1*;
.recommender/user_embedding/embeddings/part_0:0	€*G
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0í
'recommender/item_embedding/embeddings:0"3,1*8
.recommender/item_embedding/embeddings/part_0:0*8
.recommender/item_embedding/embeddings/part_1:0*I
.recommender/item_embedding/embeddings/part_2:0
198.18.7.12:CPU:0!
recommender/hidden/kernel:02
recommender/hidden/bias:0
198.18.7.13:CPU:0í
recommender/score/kernel:0"16,1*<
!recommender/score/kernel/part_0:0
198.18.7.12:CPU:0*+
!recommender/score/kernel/part_1:0*+
!recommender/score/kernel/part_2:0*:
!recommender/score/kernel/part_3:0
198.18.7.11:CPU:0*.
!recommender/score/kernel/part_4:0	€*<
!recommender/score/kernel/part_5:0
198.18.7.11:CPU:0*:
!recommender/score/kernel/part_6:0
198.18.7.11:CPU:0*.
!recommender/score/kernel/part_7:0	€*+
!recommender/score/kernel/part_8:0*:
!recommender/score/kernel/part_9:0
198.18.7.13:CPU:0*;
"recommender/score/kernel/part_10:0
198.18.7.13:CPU:0**
"recommender/score/kernel/part_11:0*-
"recommender/score/kernel/part_12:0€**
"recommender/score/kernel/part_13:0*/
"recommender/score/kernel/part_14:0	€*=
"recommender/score/kernel/part_15:0
198.18.7.11:CPU:01
recommender/score/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search