
search-4da928ee8d9bB
'recommender/user_embedding/embeddings:0
198.18.7.11:CPU:0B
'recommender/item_embedding/embeddings:0
198.18.7.11:CPU:06
recommender/hidden/kernel:0
198.18.7.11:CPU:04
recommender/hidden/bias:0
198.18.7.11:CPU:05
recommender/score/kernel:0
198.18.7.11:CPU:03
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search