
search-1d2766ba173fÝ
'recommender/user_embedding/embeddings:0"3,1*9
.recommender/user_embedding/embeddings/part_0:0€*8
.recommender/user_embedding/embeddings/part_1:0*8
.recommender/user_embedding/embeddings/part_2:0Ï
'recommender/item_embedding/embeddings:0"16,1*G
.recommender/item_embedding/embeddings/part_0:0
198.18.7.12:CPU:0*I
.recommender/item_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*;
.recommender/item_embedding/embeddings/part_2:0	€*G
.recommender/item_embedding/embeddings/part_3:0
198.18.7.12:CPU:0*8
.recommender/item_embedding/embeddings/part_4:0*G
.recommender/item_embedding/embeddings/part_5:0
198.18.7.12:CPU:0*9
.recommender/item_embedding/embeddings/part_6:0€*6
.recommender/item_embedding/embeddings/part_7:0*G
.recommender/item_embedding/embeddings/part_8:0
198.18.7.12:CPU:0*8
.recommender/item_embedding/embeddings/part_9:0*7
/recommender/item_embedding/embeddings/part_10:0*J
/recommender/item_embedding/embeddings/part_11:0
198.18.7.13:CPU:0*H
/recommender/item_embedding/embeddings/part_12:0
198.18.7.13:CPU:0*J
/recommender/item_embedding/embeddings/part_13:0
198.18.7.12:CPU:0*5
/recommender/item_embedding/embeddings/part_14:0*9
/recommender/item_embedding/embeddings/part_15:0Ê
recommender/hidden/kernel:0"8,1*=
"recommender/hidden/kernel/part_0:0
198.18.7.12:CPU:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.12:CPU:0*/
"recommender/hidden/kernel/part_2:0	€*/
"recommender/hidden/kernel/part_3:0	€*+
"recommender/hidden/kernel/part_4:0€*-
"recommender/hidden/kernel/part_5:0€*;
"recommender/hidden/kernel/part_6:0
198.18.7.12:CPU:0*-
"recommender/hidden/kernel/part_7:0€2
recommender/hidden/bias:0
198.18.7.11:CPU:0|
recommender/score/kernel:0"2,1*.
!recommender/score/kernel/part_0:0	€*)
!recommender/score/kernel/part_1:0 
recommender/score/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search