
search-fb371b09a2ccÎ
'recommender/user_embedding/embeddings:0"8,1*I
.recommender/user_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.11:CPU:0*;
.recommender/user_embedding/embeddings/part_2:0	€*I
.recommender/user_embedding/embeddings/part_3:0
198.18.7.12:CPU:0*6
.recommender/user_embedding/embeddings/part_4:0*I
.recommender/user_embedding/embeddings/part_5:0
198.18.7.12:CPU:0*G
.recommender/user_embedding/embeddings/part_6:0
198.18.7.13:CPU:0*4
.recommender/user_embedding/embeddings/part_7:0ë
'recommender/item_embedding/embeddings:0"3,1*6
.recommender/item_embedding/embeddings/part_0:0*I
.recommender/item_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*8
.recommender/item_embedding/embeddings/part_2:0 
recommender/hidden/kernel:0"1,2*=
"recommender/hidden/kernel/part_0:0
198.18.7.11:CPU:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.12:CPU:0†
recommender/hidden/bias:0"2*9
 recommender/hidden/bias/part_0:0
198.18.7.12:CPU:0*+
 recommender/hidden/bias/part_1:0€Š
recommender/score/kernel:0"2,1*)
!recommender/score/kernel/part_0:0*<
!recommender/score/kernel/part_1:0
198.18.7.11:CPU:0#
recommender/score/bias:0€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search