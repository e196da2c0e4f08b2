
search-b0a8abcb912d¶
'recommender/user_embedding/embeddings:0"16,1*;
.recommender/user_embedding/embeddings/part_0:0	€*I
.recommender/user_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*G
.recommender/user_embedding/embeddings/part_2:0
198.18.7.11:CPU:0*8
.recommender/user_embedding/embeddings/part_3:0*6
.recommender/user_embedding/embeddings/part_4:0*I
.recommender/user_embedding/embeddings/part_5:0
198.18.7.11:CPU:0*I
.recommender/user_embedding/embeddings/part_6:0
198.18.7.13:CPU:0*I
.recommender/user_embedding/embeddings/part_7:0
198.18.7.12:CPU:0*I
.recommender/user_embedding/embeddings/part_8:0
198.18.7.13:CPU:0*9
.recommender/user_embedding/embeddings/part_9:0€*9
/recommender/user_embedding/embeddings/part_10:0*9
/recommender/user_embedding/embeddings/part_11:0*5
/recommender/user_embedding/embeddings/part_12:0*<
/recommender/user_embedding/embeddings/part_13:0	€*7
/recommender/user_embedding/embeddings/part_14:0*7
/recommender/user_embedding/embeddings/part_15:0Ò
'recommender/item_embedding/embeddings:0"4,1*G
.recommender/item_embedding/embeddings/part_0:0
198.18.7.13:CPU:0*G
.recommender/item_embedding/embeddings/part_1:0
198.18.7.13:CPU:0*G
.recommender/item_embedding/embeddings/part_2:0
198.18.7.11:CPU:0*G
.recommender/item_embedding/embeddings/part_3:0
198.18.7.13:CPU:0~
recommender/hidden/kernel:0"1,2*,
"recommender/hidden/kernel/part_0:0*,
"recommender/hidden/kernel/part_1:0w
recommender/hidden/bias:0"2*-
 recommender/hidden/bias/part_0:0	€*(
 recommender/hidden/bias/part_1:0Ì
recommender/score/kernel:0"8,1*)
!recommender/score/kernel/part_0:0*:
!recommender/score/kernel/part_1:0
198.18.7.12:CPU:0*+
!recommender/score/kernel/part_2:0*.
!recommender/score/kernel/part_3:0	€*+
!recommender/score/kernel/part_4:0*<
!recommender/score/kernel/part_5:0
198.18.7.12:CPU:0*<
!recommender/score/kernel/part_6:0
198.18.7.13:CPU:0*<
!recommender/score/kernel/part_7:0
198.18.7.12:CPU:01
recommender/score/bias:0
198.18.7.11:CPU:0"9
198.18.7.11:CPU:0
198.18.7.12:CPU:0
198.18.7.13:CPU:0‚"search