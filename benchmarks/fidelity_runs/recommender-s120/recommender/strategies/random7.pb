
search-452cc52cf4bbë
'recommender/user_embedding/embeddings:0"3,1*6
.recommender/user_embedding/embeddings/part_0:0*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*8
.recommender/user_embedding/embeddings/part_2:0B
'recommender/item_embedding/embeddings:0
198.18.7.13:CPU:0œ
recommender/hidden/kernel:0"1,4*=
"recommender/hidden/kernel/part_0:0
198.18.7.13:CPU:0*=
"recommender/hidden/kernel/part_1:0
198.18.7.13:CPU:0*;
"recommender/hidden/kernel/part_2:0
198.18.7.13:CPU:0*=
"recommender/hidden/kernel/part_3:0
198.18.7.11:CPU:0ˆ
recommender/hidden/bias:0"2*-
 recommender/hidden/bias/part_0:0	€*9
 recommender/hidden/bias/part_1:0
198.18.7.13:CPU:0"
recommender/score/kernel:03
recommender/score/bias:0
198.18.7.13:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search