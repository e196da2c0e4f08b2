
search-2909b52a54eb@
'recommender/user_embedding/embeddings:0
198.18.7.13:CPU:01
'recommender/item_embedding/embeddings:0Œ
recommender/hidden/kernel:0"4,1*;
"recommender/hidden/kernel/part_0:0
198.18.7.12:CPU:0*;
"recommender/hidden/kernel/part_1:0
198.18.7.13:CPU:0*=
"recommender/hidden/kernel/part_2:0
198.18.7.13:CPU:0*/
"recommender/hidden/kernel/part_3:0	€2
recommender/hidden/bias:0
198.18.7.11:CPU:05
recommender/score/kernel:0
198.18.7.12:CPU:0#
recommender/score/bias:0€"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search