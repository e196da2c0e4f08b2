
search-9bbd7f5dc158µ
'recommender/user_embedding/embeddings:0"4,1*G
.recommender/user_embedding/embeddings/part_0:0
198.18.7.12:CPU:0*6
.recommender/user_embedding/embeddings/part_1:0*;
.recommender/user_embedding/embeddings/part_2:0	€*G
.recommender/user_embedding/embeddings/part_3:0
198.18.7.12:CPU:0ç
'recommender/item_embedding/embeddings:0"3,1*G
.recommender/item_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*4
.recommender/item_embedding/embeddings/part_1:0*8
.recommender/item_embedding/embeddings/part_2:04
recommender/hidden/kernel:0
198.18.7.12:CPU:0v
recommender/hidden/bias:0"2**
 recommender/hidden/bias/part_0:0**
 recommender/hidden/bias/part_1:0|
recommender/score/kernel:0"2,1*,
!recommender/score/kernel/part_0:0€*+
!recommender/score/kernel/part_1:03
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search