
search-843f2dbc950aº
'recommender/user_embedding/embeddings:0"8,1*I
.recommender/user_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*G
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*;
.recommender/user_embedding/embeddings/part_2:0	€*G
.recommender/user_embedding/embeddings/part_3:0
198.18.7.12:CPU:0*4
.recommender/user_embedding/embeddings/part_4:0*G
.recommender/user_embedding/embeddings/part_5:0
198.18.7.11:CPU:0*4
.recommender/user_embedding/embeddings/part_6:0*;
.recommender/user_embedding/embeddings/part_7:0	€À
'recommender/item_embedding/embeddings:0"8,1*I
.recommender/item_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*G
.recommender/item_embedding/embeddings/part_1:0
198.18.7.11:CPU:0*;
.recommender/item_embedding/embeddings/part_2:0	€*6
.recommender/item_embedding/embeddings/part_3:0*G
.recommender/item_embedding/embeddings/part_4:0
198.18.7.13:CPU:0*;
.recommender/item_embedding/embeddings/part_5:0	€*I
.recommender/item_embedding/embeddings/part_6:0
198.18.7.13:CPU:0*6
.recommender/item_embedding/embeddings/part_7:0(
recommender/hidden/kernel:0	€²
recommender/hidden/bias:0"3*9
 recommender/hidden/bias/part_0:0
198.18.7.11:CPU:0*(
 recommender/hidden/bias/part_1:0*-
 recommender/hidden/bias/part_2:0	€™
recommender/score/kernel:0"2,1*:
!recommender/score/kernel/part_0:0
198.18.7.13:CPU:0*:
!recommender/score/kernel/part_1:0
198.18.7.13:CPU:01
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search