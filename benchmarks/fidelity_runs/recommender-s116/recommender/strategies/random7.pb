
search-5a514311c5aeú
'recommender/user_embedding/embeddings:0"3,1*6
.recommender/user_embedding/embeddings/part_0:0*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*G
.recommender/user_embedding/embeddings/part_2:0
198.18.7.13:CPU:0·
'recommender/item_embedding/embeddings:0"4,1*G
.recommender/item_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*8
.recommender/item_embedding/embeddings/part_1:0*G
.recommender/item_embedding/embeddings/part_2:0
198.18.7.13:CPU:0*;
.recommender/item_embedding/embeddings/part_3:0	€4
recommender/hidden/kernel:0
198.18.7.11:CPU:0…
recommender/hidden/bias:0"2**
 recommender/hidden/bias/part_0:0*9
 recommender/hidden/bias/part_1:0
198.18.7.11:CPU:0ú
recommender/score/kernel:0"4,1*<
!recommender/score/kernel/part_0:0
198.18.7.11:CPU:0*+
!recommender/score/kernel/part_1:0*.
!recommender/score/kernel/part_2:0	€*<
!recommender/score/kernel/part_3:0
198.18.7.13:CPU:01
recommender/score/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search