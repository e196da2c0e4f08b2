
search-ccfaa3fb6fb7ç
'recommender/user_embedding/embeddings:0"3,1*8
.recommender/user_embedding/embeddings/part_0:0*4
.recommender/user_embedding/embeddings/part_1:0*G
.recommender/user_embedding/embeddings/part_2:0
198.18.7.13:CPU:0ú
'recommender/item_embedding/embeddings:0"3,1*I
.recommender/item_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*I
.recommender/item_embedding/embeddings/part_1:0
198.18.7.12:CPU:0*4
.recommender/item_embedding/embeddings/part_2:0&
recommender/hidden/kernel:0€œ
recommender/hidden/bias:0"8**
 recommender/hidden/bias/part_0:0**
 recommender/hidden/bias/part_1:0**
 recommender/hidden/bias/part_2:0*-
 recommender/hidden/bias/part_3:0	€*9
 recommender/hidden/bias/part_4:0
198.18.7.13:CPU:0*&
 recommender/hidden/bias/part_5:0*+
 recommender/hidden/bias/part_6:0€*9
 recommender/hidden/bias/part_7:0
198.18.7.12:CPU:0'
recommender/score/kernel:0	€3
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search