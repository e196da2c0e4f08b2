
search-e51c20e32afcB
'recommender/user_embedding/embeddings:0
198.18.7.13:CPU:0Ø
'recommender/item_embedding/embeddings:0"3,1*6
.recommender/item_embedding/embeddings/part_0:0*6
.recommender/item_embedding/embeddings/part_1:0*8
.recommender/item_embedding/embeddings/part_2:0Ô
recommender/hidden/kernel:0"1,8*;
"recommender/hidden/kernel/part_0:0
198.18.7.13:CPU:0*;
"recommender/hidden/kernel/part_1:0
198.18.7.11:CPU:0*(
"recommender/hidden/kernel/part_2:0*=
"recommender/hidden/kernel/part_3:0
198.18.7.12:CPU:0*/
"recommender/hidden/kernel/part_4:0	€*,
"recommender/hidden/kernel/part_5:0*=
"recommender/hidden/kernel/part_6:0
198.18.7.12:CPU:0*/
"recommender/hidden/kernel/part_7:0	€2
recommender/hidden/bias:0
198.18.7.13:CPU:0Æ
recommender/score/kernel:0"3,1*'
!recommender/score/kernel/part_0:0*<
!recommender/score/kernel/part_1:0
198.18.7.13:CPU:0*<
!recommender/score/kernel/part_2:0
198.18.7.13:CPU:03
recommender/score/bias:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search