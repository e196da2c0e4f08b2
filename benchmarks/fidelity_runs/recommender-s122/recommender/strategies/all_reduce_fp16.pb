
search-af1c54a4ef06-
'recommender/user_embedding/embeddings:0-
'recommender/item_embedding/embeddings:0!
recommender/hidden/kernel:0
recommender/hidden/bias:0 
recommender/score/kernel:0
recommender/score/bias:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search