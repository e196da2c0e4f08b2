
search-d0f867f1d6cb¯
'recommender/user_embedding/embeddings:0"2,1*G
.recommender/user_embedding/embeddings/part_0:0
198.18.7.11:CPU:0*6
.recommender/user_embedding/embeddings/part_1:0Ç
'recommender/item_embedding/embeddings:0"8,1*I
.recommender/item_embedding/embeddings/part_0:0
198.18.7.12:CPU:0*G
.recommender/item_embedding/embeddings/part_1:0
198.18.7.12:CPU:0*G
.recommender/item_embedding/embeddings/part_2:0
198.18.7.12:CPU:0*G
.recommender/item_embedding/embeddings/part_3:0
198.18.7.12:CPU:0*G
.recommender/item_embedding/embeddings/part_4:0
198.18.7.12:CPU:0*6
.recommender/item_embedding/embeddings/part_5:0*6
.recommender/item_embedding/embeddings/part_6:0*8
.recommender/item_embedding/embeddings/part_7:0‰
recommender/hidden/kernel:0"1,4*=
"recommender/hidden/kernel/part_0:0
198.18.7.11:CPU:0*,
"recommender/hidden/kernel/part_1:0*;
"recommender/hidden/kernel/part_2:0
198.18.7.11:CPU:0*;
"recommender/hidden/kernel/part_3:0
198.18.7.13:CPU:0§
recommender/hidden/bias:0"16*-
 recommender/hidden/bias/part_0:0	€*-
 recommender/hidden/bias/part_1:0	€*(
 recommender/hidden/bias/part_2:0*9
 recommender/hidden/bias/part_3:0
198.18.7.12:CPU:0*-
 recommender/hidden/bias/part_4:0	€*(
 recommender/hidden/bias/part_5:0**
 recommender/hidden/bias/part_6:0*+
 recommender/hidden/bias/part_7:0€*9
 recommender/hidden/bias/part_8:0
198.18.7.11:CPU:0*(
 recommender/hidden/bias/part_9:0*+
!recommender/hidden/bias/part_10:0*:
!recommender/hidden/bias/part_11:0
198.18.7.12:CPU:0*,
!recommender/hidden/bias/part_12:0€*+
!recommender/hidden/bias/part_13:0*<
!recommender/hidden/bias/part_14:0
198.18.7.11:CPU:0**
!recommender/hidden/bias/part_15:0€¬
recommender/score/kernel:0"3,1*.
!recommender/score/kernel/part_0:0	€*)
!recommender/score/kernel/part_1:0*.
!recommender/score/kernel/part_2:0	€1
recommender/score/bias:0
198.18.7.12:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search