
search-29d7de27dea8Ä
'recommender/user_embedding/embeddings:0"2,1*I
.recommender/user_embedding/embeddings/part_0:0
198.18.7.11:CPU:0*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.12:CPU:0£
'recommender/item_embedding/embeddings:0"2,1*6
.recommender/item_embedding/embeddings/part_0:0*;
.recommender/item_embedding/embeddings/part_1:0	€ 
recommender/hidden/kernel:0"1,2*=
"recommender/hidden/kernel/part_0:0
198.18.7.11:CPU:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.12:CPU:0w
recommender/hidden/bias:0"2*(
 recommender/hidden/bias/part_0:0*-
 recommender/hidden/bias/part_1:0	€›
recommender/score/kernel:0"2,1*<
!recommender/score/kernel/part_0:0
198.18.7.12:CPU:0*:
!recommender/score/kernel/part_1:0
198.18.7.12:CPU:0 
recommender/score/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search