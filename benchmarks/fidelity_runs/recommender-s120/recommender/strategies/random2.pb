
search-42643b51de28 
'recommender/user_embedding/embeddings:0"2,1*8
.recommender/user_embedding/embeddings/part_0:0*6
.recommender/user_embedding/embeddings/part_1:0@
'recommender/item_embedding/embeddings:0
198.18.7.12:CPU:0ã
recommender/hidden/kernel:0"4,1*=
"recommender/hidden/kernel/part_0:0
198.18.7.13:CPU:0**
"recommender/hidden/kernel/part_1:0*(
"recommender/hidden/kernel/part_2:0**
"recommender/hidden/kernel/part_3:0Å
recommender/hidden/bias:0"3*;
 recommender/hidden/bias/part_0:0
198.18.7.13:CPU:0*9
 recommender/hidden/bias/part_1:0
198.18.7.12:CPU:0*-
 recommender/hidden/bias/part_2:0	€•
recommender/score/kernel:0"4,1*:
!recommender/score/kernel/part_0:0
198.18.7.12:CPU:0*<
!recommender/score/kernel/part_1:0
198.18.7.12:CPU:0*<
!recommender/score/kernel/part_2:0
198.18.7.13:CPU:0*:
!recommender/score/kernel/part_3:0
198.18.7.11:CPU:0#
recommender/score/bias:0€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search